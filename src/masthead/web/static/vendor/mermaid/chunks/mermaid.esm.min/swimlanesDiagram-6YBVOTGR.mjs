import{a as e,b as o}from"./chunk-4ALDSGUH.mjs";import"./chunk-FM3EP27M.mjs";import"./chunk-A3LLD7C6.mjs";import"./chunk-CG7VIXT6.mjs";import"./chunk-DLH2IEIQ.mjs";import"./chunk-IJTDMCXQ.mjs";import"./chunk-N6HA57SN.mjs";import"./chunk-5LJW3EUZ.mjs";import"./chunk-3UAVOGSN.mjs";import"./chunk-I3TGAWCN.mjs";import"./chunk-MTL3NAOM.mjs";import"./chunk-PJ2FCULI.mjs";import"./chunk-CBDDXUFN.mjs";import"./chunk-JENJ2NYI.mjs";import"./chunk-J3HIBH47.mjs";import"./chunk-PNVTB6QF.mjs";import"./chunk-QMVAV2W2.mjs";import"./chunk-JMS3MFCX.mjs";import"./chunk-3A3SYRXV.mjs";import"./chunk-VHEAKMU3.mjs";import"./chunk-OI4SXON4.mjs";import"./chunk-NXZFCOWJ.mjs";import{a as r}from"./chunk-V3YWWTDH.mjs";var s=r(t=>`${e(t)}
  .swimlane.cluster:not([data-color-id]) rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),l=s;var p=o({styles:l});export{p as diagram};

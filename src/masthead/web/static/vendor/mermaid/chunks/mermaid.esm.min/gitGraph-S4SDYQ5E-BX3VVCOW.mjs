import{a as r,b as e}from"./chunk-6GTQGJNM.mjs";import"./chunk-MWUZ53VY.mjs";import"./chunk-V3YWWTDH.mjs";export{r as GitGraphModule,e as createGitGraphServices};

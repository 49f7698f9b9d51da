import{a as r,b as o}from"./chunk-EKDPPX6U.mjs";import"./chunk-MWUZ53VY.mjs";import"./chunk-V3YWWTDH.mjs";export{r as RailroadAbnfModule,o as createRailroadAbnfServices};

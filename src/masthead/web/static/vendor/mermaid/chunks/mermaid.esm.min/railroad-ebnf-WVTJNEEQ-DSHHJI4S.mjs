import{a as r,b as o}from"./chunk-ETFDQZFQ.mjs";import"./chunk-MWUZ53VY.mjs";import"./chunk-V3YWWTDH.mjs";export{r as RailroadEbnfModule,o as createRailroadEbnfServices};

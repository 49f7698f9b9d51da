import{a as e,b as r}from"./chunk-XU3RQ3PZ.mjs";import"./chunk-MWUZ53VY.mjs";import"./chunk-V3YWWTDH.mjs";export{e as ArchitectureModule,r as createArchitectureServices};

import { alertCheckTool } from "./pains_check.js";

export const brenkCheckTool = alertCheckTool("brenk", {
  name: "brenk_check",
  title: "Brenk structural alerts",
  description:
    "Screen for the 105 Brenk unwanted-group alerts (reactive, toxic, unstable; RDKit FilterCatalog): passes, alert_count, each alert with its atoms. Read one as a flag.",
  familyDescription: "Always 'Brenk' (the set has no sub-families).",
});

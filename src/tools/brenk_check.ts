import { alertCheckTool } from "./pains_check.js";

export const brenkCheckTool = alertCheckTool("brenk", {
  name: "brenk_check",
  title: "Brenk structural alerts",
  description:
    "Screen a molecule for the 105 Brenk unwanted-group alerts (Brenk et al. 2008: reactive, toxic or unstable groups; equal to RDKit's FilterCatalog BRENK). Use it to flag liabilities " +
    "when choosing compounds; many drugs carry one, so read it as a flag. Returns passes, alert_count and each alert's name and matched atoms. For assay interference use pains_check.",
  familyDescription: "Always 'Brenk' (the set has no sub-families).",
});

import { alertCheckTool } from "./pains_check.js";

export const brenkCheckTool = alertCheckTool("brenk", {
  name: "brenk_check",
  title: "Brenk structural alerts",
  description:
    "Screen one molecule against the 105 Brenk structural alerts (Brenk et al. 2008): groups that are reactive, toxic, metabolically " +
    "unstable or otherwise unwanted in screening and lead compounds (e.g. aldehydes, Michael acceptors, nitro groups, alkyl halides, " +
    "long aliphatic chains). Hits equal RDKit's FilterCatalog BRENK. Returns passes (no alert), alert_count, alert names and, for each " +
    "alert, the matched atoms. Use it to flag liabilities when choosing compounds to buy, make or progress; many approved drugs carry " +
    "one alert, so read it as a flag, not a verdict. For assay-interference motifs use pains_check.",
  familyDescription: "Always 'Brenk' (the set has no sub-families).",
});

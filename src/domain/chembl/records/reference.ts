/**
 * The reference record (a label, trial or paper behind a mechanism, indication or warning) and the refs field
 * each of those records declares with it. Offline each reference is read from its *_refs row (r).
 */
import { declareRecord } from "./record.js";

export const REFERENCE = declareRecord({
  description: "One reference.",
  fields: [
    { name: "ref_type", type: "string", description: "Reference source, e.g. FDA, ClinicalTrials, PubMed.", sqlite: "r.ref_type" },
    { name: "ref_id", type: "string", description: "Identifier within that source.", sqlite: "r.ref_id" },
    { name: "ref_url", type: "string", description: "Link.", sqlite: "r.ref_url" },
  ],
});

/** The refs field of a drug record, held by the web API under `api` (mechanism_refs, ...) and offline in its list `refs`. */
export function refsField<const K extends string>(api: K) {
  return {
    name: "refs",
    type: "array",
    nullable: false,
    items: REFERENCE,
    description: "ChEMBL's references for the record (label, trial or paper).",
    api,
    sqlite: "refs",
    markdown: "cell",
  } as const;
}

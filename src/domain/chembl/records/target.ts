/**
 * The target record (a chembl_search_targets row, chembl://target/{id}) and its components, declared once.
 * Offline a target is read from target_dictionary (t) and its list of components (components), each one a
 * target_components row joined with its component_sequences row, its relationship and its synonyms (c).
 */
import { listOf, toText } from "../coerce.js";
import { declareRecord } from "./record.js";

/** Components listed per target row; a complex or ribosome can hold dozens (component_count says how many). */
const MAX_COMPONENTS_PER_TARGET = 25;

export const TARGET_COMPONENT = declareRecord({
  description: "One component.",
  compact: true,
  fields: [
    { name: "accession", type: "string", description: "UniProt accession (null for RNA and some components).", sqlite: "c.accession" },
    { name: "component_type", type: "string", description: "PROTEIN, RNA, ...", sqlite: "c.component_type" },
    { name: "relationship", type: "string", description: "Its role, e.g. SINGLE PROTEIN, PROTEIN SUBUNIT, GROUP MEMBER.", sqlite: "c.relationship" },
    { name: "description", type: "string", description: "Component name.", api: "component_description", sqlite: "c.description" },
    {
      name: "gene_symbols",
      type: "array",
      nullable: false,
      items: { type: "string", description: "A gene symbol." },
      description: "Gene symbols (trimmed).",
      api: "target_component_synonyms",
      read: (c) => {
        const genes = new Set<string>();
        for (const s of listOf(c.target_component_synonyms)) {
          const type = toText(s.syn_type);
          const name = toText(s.component_synonym); // trims: ChEMBL gene symbols can carry trailing spaces
          if (name && (type === "GENE_SYMBOL" || type === "GENE_SYMBOL_OTHER")) genes.add(name);
        }
        return [...genes];
      },
      sqlite: "c.synonyms",
    },
  ],
});

export const TARGET = declareRecord({
  description: "One target.",
  compact: true,
  fields: [
    { name: "target_chembl_id", type: "string", description: "ChEMBL target ID (the ID chembl_get_bioactivities takes).", sqlite: "t.chembl_id" },
    { name: "pref_name", type: "string", description: "Target name.", sqlite: "t.pref_name" },
    { name: "target_type", type: "string", description: "SINGLE PROTEIN, PROTEIN COMPLEX, PROTEIN FAMILY, CELL-LINE, ORGANISM, ...", sqlite: "t.target_type" },
    { name: "organism", type: "string", description: "Organism.", sqlite: "t.organism" },
    { name: "tax_id", type: "integer", description: "NCBI taxonomy ID.", sqlite: "t.tax_id" },
    { name: "species_group_flag", type: "boolean", description: "Whether the target groups several species.", sqlite: "t.species_group_flag" },
    {
      name: "component_count",
      type: "integer",
      nullable: false,
      minimum: 0,
      description: `Components the target has (the list below stops at ${MAX_COMPONENTS_PER_TARGET}).`,
      api: "target_components",
      read: (raw) => listOf(raw.target_components).length,
      // The components' list below fills target_components offline.
    },
    {
      name: "components",
      type: "array",
      nullable: false,
      items: TARGET_COMPONENT,
      max: MAX_COMPONENTS_PER_TARGET,
      description: `Its components (proteins, RNA), at most ${MAX_COMPONENTS_PER_TARGET}.`,
      api: "target_components",
      sqlite: "components",
      markdown: "cell",
    },
  ],
});

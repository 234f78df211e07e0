/**
 * The staged bioactivity tables: one per potency view (bioactivities for potency_ranked,
 * bioactivities_null_potency for null_potency), so both can sit on one canvas and UNION ALL back into the
 * whole set. Column types are explicit, never inferred from rows: activity_id BIGINT; every measured value
 * (standard_value, pchembl_value, ...) a nullable DOUBLE; years and IDs INTEGER; potential_duplicate
 * BOOLEAN; text VARCHAR. view_position keeps the view's order (1 = first row ChEMBL returned).
 */
import type { PotencyView } from "../chembl/service.js";
import type { Activity } from "../chembl/types.js";
import type { CellValue, ColumnSpec, ColumnType } from "./tables.js";

export const VIEW_TABLES: Record<PotencyView, string> = {
  potency_ranked: "bioactivities",
  null_potency: "bioactivities_null_potency",
};

type ActivityColumn = Exclude<keyof Activity, "ligand_efficiency">;

const c = (type: ColumnType, description: string) => ({ type, description });

/** Every Activity field (the compiler checks none is missing), in the row order of the tool's answer. */
const ACTIVITY_COLUMNS: Record<ActivityColumn, { type: ColumnType; description: string }> = {
  activity_id: c("BIGINT", "ChEMBL activity ID (unique)."),
  molecule_chembl_id: c("VARCHAR", "The form measured (may be a salt)."),
  parent_molecule_chembl_id: c("VARCHAR", "Its family parent: group by it to merge salts and forms."),
  molecule_pref_name: c("VARCHAR", "Molecule name, or NULL."),
  canonical_smiles: c("VARCHAR", "Structure of the form measured."),
  parent_smiles: c(
    "VARCHAR",
    "Structure of the family parent as ChEMBL records it (the parent's canonical_smiles): annotate it (smiles_column parent_smiles) for the compound's own properties, not its salt's.",
  ),
  target_chembl_id: c("VARCHAR", "Target ID."),
  target_pref_name: c("VARCHAR", "Target name."),
  target_organism: c("VARCHAR", "Target organism (NULL for non-protein targets)."),
  target_tax_id: c("INTEGER", "Target NCBI taxonomy ID."),
  assay_chembl_id: c("VARCHAR", "The assay (chembl_get_assay)."),
  assay_type: c("VARCHAR", "B binding, F functional, A ADMET, T toxicity, P physicochemical, U unclassified."),
  assay_description: c("VARCHAR", "Assay description."),
  assay_variant_mutation: c("VARCHAR", "Mutation of the target variant tested (e.g. T790M); NULL for wild type or unrecorded."),
  assay_variant_accession: c("VARCHAR", "UniProt accession of that variant."),
  document_chembl_id: c("VARCHAR", "Source publication or dataset (chembl_get_documents)."),
  document_journal: c("VARCHAR", "Journal."),
  document_year: c("INTEGER", "Publication year."),
  standard_type: c("VARCHAR", "Standardised measurement type (IC50, Ki, EC50, Kd, Inhibition, ...)."),
  standard_relation: c("VARCHAR", "=, <, >, <=, >= (censored values are not exact)."),
  standard_value: c("DOUBLE", "Standardised value; NULL when only a comment was recorded."),
  standard_upper_value: c("DOUBLE", "Upper bound of a range, or NULL."),
  standard_units: c("VARCHAR", "Units of standard_value (nM, %, ...)."),
  pchembl_value: c("DOUBLE", "-log10 molar potency; compare only within one standard_type; NULL in bioactivities_null_potency."),
  type: c("VARCHAR", "Measurement type as published."),
  relation: c("VARCHAR", "Relation as published."),
  value: c("DOUBLE", "Value as published."),
  units: c("VARCHAR", "Units as published."),
  activity_comment: c("VARCHAR", "Curator comment (Not Active, Not Determined, ...)."),
  data_validity_comment: c("VARCHAR", "Data validity warning (Outside typical range, Potential transcription error, ...), or NULL."),
  data_validity_description: c("VARCHAR", "What that warning means."),
  potential_duplicate: c("BOOLEAN", "ChEMBL flags it as a likely repeat of another measurement."),
  bao_label: c("VARCHAR", "BioAssay Ontology format label."),
  action_type: c("VARCHAR", "Action type (INHIBITOR, ...), or NULL."),
  src_id: c("INTEGER", "ChEMBL source ID."),
};

const LIGAND_EFFICIENCY: Array<[keyof NonNullable<Activity["ligand_efficiency"]>, string]> = [
  ["le", "Ligand efficiency (LE), or NULL."],
  ["lle", "Lipophilic ligand efficiency (LLE), or NULL."],
  ["bei", "Binding efficiency index (BEI), or NULL."],
  ["sei", "Surface efficiency index (SEI), or NULL."],
];

export const ACTIVITY_TABLE_COLUMNS: ColumnSpec[] = [
  {
    name: "view_position",
    type: "INTEGER",
    description: "Position in the view's order (1 = first: highest pchembl_value in bioactivities, lowest activity_id in bioactivities_null_potency).",
  },
  ...(Object.entries(ACTIVITY_COLUMNS) as Array<[ActivityColumn, { type: ColumnType; description: string }]>).map(([name, spec]) => ({ name, ...spec })),
  ...LIGAND_EFFICIENCY.map(([name, description]) => ({ name, type: "DOUBLE" as const, description })),
];

const FIELDS = Object.keys(ACTIVITY_COLUMNS) as ActivityColumn[];

/** One activity as a row of ACTIVITY_TABLE_COLUMNS. */
function activityRow(a: Activity, position: number): CellValue[] {
  const row = new Array<CellValue>(FIELDS.length + 5);
  row[0] = position;
  for (let i = 0; i < FIELDS.length; i++) row[i + 1] = a[FIELDS[i]!];
  const le = a.ligand_efficiency;
  row[FIELDS.length + 1] = le?.le ?? null;
  row[FIELDS.length + 2] = le?.lle ?? null;
  row[FIELDS.length + 3] = le?.bei ?? null;
  row[FIELDS.length + 4] = le?.sei ?? null;
  return row;
}

/** Activities as rows, the first at 0-based view position `start` (its view_position is start + 1). */
export function activityRows(activities: readonly Activity[], start = 0): CellValue[][] {
  return activities.map((a, i) => activityRow(a, start + i + 1));
}

/**
 * The unit of every numeric answer field, stated once, by field name. The registry writes it into the description
 * of each numeric output-schema field of that name (withUnits), canvas_annotate into the description of the column
 * it computes (which chembl_dataframe_describe shows), and docs/tools.md's units table is tested against it. A field
 * whose own description already names its unit keeps its words; counts and indices are integers and need none.
 */
export const UNITS: Readonly<Record<string, string>> = {
  // Masses and sizes.
  mw: "g/mol (average molecular weight)",
  mol_weight: "g/mol (average molecular weight)",
  MW: "g/mol (average molecular weight)",
  exact_mass: "g/mol (monoisotopic mass, Da)",
  tpsa: "Å² (topological polar surface area)",
  tpsa_sp: "Å² (topological polar surface area)",
  PSA: "Å² (topological polar surface area)",
  mr: "cm³/mol (Crippen molar refractivity)",
  rmsd_to_first: "Å",
  // Partition and solubility: logarithms, unitless.
  logp: "log10 units, unitless (octanol/water partition coefficient)",
  ALOGP: "log10 units, unitless (octanol/water partition coefficient)",
  esol_logs: "log10(mol/L)",
  bbb_score: "log10 units, unitless (logBB: brain/blood concentration ratio)",
  // Scores on their own scales.
  qed: "unitless, 0 to 1",
  fsp3: "unitless fraction, 0 to 1 (sp3 carbons over all carbons)",
  sa_score: "unitless, 1 (easy) to 10 (hard)",
  similarity: "unitless, 0 to 1 (Tanimoto)",
  herg_risk: "unitless fraction of criteria met, 0 to 1",
  cyp3a4_risk: "unitless fraction of criteria met, 0 to 1",
  ames_risk: "unitless, 0 or 1",
  threshold: "unitless, 0 to 1",
  white_distance: "unitless (normalised squared distance; <= 1 inside)",
  yolk_distance: "unitless (normalised squared distance; <= 1 inside)",
  similarity_percent: "percent (Tanimoto similarity x 100)",
  target_sa_score: "unitless, 1 (easy) to 10 (hard)",
  max_fragment_sa: "unitless, 1 (easy) to 10 (hard)",
  fragment_sa_scores: "unitless, 1 (easy) to 10 (hard)",
  fragment_score: "unitless (a term of the SA score)",
  complexity_penalty: "unitless (a term of the SA score)",
  symmetry_correction: "unitless (a term of the SA score)",
  raw_score: "unitless (a term of the SA score)",
  size: "unitless (a term of the SA score)",
  center_wlogp: "log10 units, unitless (WLOGP)",
  axis_wlogp: "log10 units, unitless (WLOGP)",
  center_tpsa: "Å² (topological polar surface area)",
  axis_tpsa: "Å² (topological polar surface area)",
  order: "unitless (bond order)",
  angle_deg: "degrees",
  min_distance: "unitless, 0 to 1 (Tanimoto distance)",
  alogp: "log10 units, unitless (octanol/water partition coefficient, ChEMBL's calculation)",
  qed_weighted: "unitless, 0 to 1",
  pchembl_value_min: "unitless, -log10 of the molar potency",
  // Energies.
  energy_kcal_mol: "kcal/mol",
  relative_energy_kcal_mol: "kcal/mol",
  // ChEMBL activities.
  pchembl_value: "unitless, -log10 of the molar potency",
  standard_value: "in standard_units",
  standard_upper_value: "in standard_units",
  value: "in the units its record or rule names (a ChEMBL record's units or standard_units; a rule's property)",
  limit: "in the unit of the rule's property (g/mol for MW, log10 units for logP, a count for donors and acceptors)",
  le: "kcal/mol per heavy atom (ligand efficiency)",
  lle: "unitless, pActivity - logP (lipophilic ligand efficiency)",
  bei: "pActivity per kDa of molecular weight (binding efficiency index)",
  sei: "pActivity per 100 Å² of polar surface area (surface efficiency index)",
  // Counts typed as numbers (druglikeness_filters' rule values).
  hbd: "count",
  hba: "count",
  rotb: "count",
  atoms: "count",
  rings: "count",
  carbons: "count",
  heteroatoms: "count",
  // Development phase (ChEMBL).
  max_phase: "clinical phase: 4 approved, 3, 2, 1, 0.5 early phase 1, -1 unknown",
  max_phase_min: "clinical phase: 4 approved, 3, 2, 1, 0.5 early phase 1",
  max_phase_for_ind: "clinical phase: 4 approved, 3, 2, 1, 0.5 early phase 1, -1 unknown",
  // Differences of values the caller gave (matched_pairs).
  delta: "in the units of the values given",
  mean: "in the units of the values given",
  sd: "in the units of the values given",
};

/** Words by which a description already states its unit. */
const OWN_UNIT = /\bpercent\b|%|g\/mol|Å|kcal\/mol|mol\/L|\blog10\b|\bunitless\b/;

/** A field's description with its unit named, unless it names it already. */
export function describedWithUnit(name: string, description: string | undefined): string | undefined {
  const unit = UNITS[name];
  if (unit === undefined) return description;
  const text = (description ?? "").trim();
  // A description that names a unit of its own keeps it (chembl_search_molecules' similarity is in percent).
  if (text.includes(unit) || OWN_UNIT.test(text)) return text;
  return text === "" ? `Unit: ${unit}.` : `${text}${/[.:;]$/.test(text) ? "" : "."} Unit: ${unit}.`;
}

type Schema = Record<string, unknown>;

const isNumber = (s: Schema): boolean => {
  const t = s.type;
  return t === "number" || (Array.isArray(t) && t.includes("number")) || (Array.isArray(s.anyOf) && (s.anyOf as Schema[]).some((a) => a.type === "number"));
};
/** A number, or a list of numbers (fragment_sa_scores). */
const isNumeric = (s: Schema): boolean => isNumber(s) || (s.type === "array" && s.items !== null && typeof s.items === "object" && isNumber(s.items as Schema));

/** An output schema with every numeric field named in UNITS described with its unit (a copy; the input is not changed). */
export function withUnits(schema: Schema): Schema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const out: Schema = {};
    for (const [k, v] of Object.entries(node as Schema)) {
      if ((k === "properties" || k === "$defs") && v !== null && typeof v === "object") {
        out[k] = Object.fromEntries(
          Object.entries(v as Schema).map(([name, child]) => {
            const walked = walk(child) as Schema;
            if (k !== "properties" || !isNumeric(walked) || UNITS[name] === undefined) return [name, walked];
            return [name, { ...walked, description: describedWithUnit(name, walked.description as string | undefined) }];
          }),
        );
      } else out[k] = walk(v);
    }
    return out;
  };
  return walk(schema) as Schema;
}

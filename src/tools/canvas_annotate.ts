/**
 * canvas_annotate: chemistry as columns. Computes a fixed vocabulary of per-molecule values from a table's
 * SMILES column and writes them as new columns of that table, so an agent can filter and rank by them in
 * SQL without the molecules ever crossing its context.
 *
 * The rows run through the worker pool in chunks (ChemRunner.runList, the batch machinery of list calls)
 * with the worker-only tool canvasAnnotateRowTool below, which computes each value with the same code as
 * the single-molecule tool that answers it (calc_properties, pains_check, ...); a kind asked for with `parent: true`
 * is computed on the row's standardised parent, as that tool's own `parent: true` does. A table too big for one
 * call's budget is annotated in steps: the answer says complete: false, and the same call continues with
 * the rows not yet annotated (the canvas remembers which rows hold which column; see
 * Canvas.prepareAnnotation).
 */
import { TABLE_APP_URI } from "../contract/apps.js";
import { CANVAS_WRITE_ANNOTATIONS } from "./canvas-set.js";
import { describedWithUnit } from "../contract/units.js";
import { ToolError } from "../domain/errors.js";
import { descriptorsOf, parseSmiles, round, withMol, type RDKit, type RDKitMol } from "../domain/chem/rdkit.js";
import { molGraph } from "../domain/chem/graph.js";
import { descriptorProperties, molFormula } from "../domain/chem/properties.js";
import { computeQed } from "../domain/chem/qed.js";
import { computeSaScore } from "../domain/chem/sascore.js";
import { screenAlerts } from "../domain/chem/alerts.js";
import { boiledEggPayload, polarGraphInfo } from "../domain/chem/boiled_egg.js";
import { esolLogS } from "../domain/chem/admet.js";
import { computeRepresentations } from "../domain/chem/representations.js";
import { murckoScaffold, genericScaffold, scaffoldHints } from "../domain/chem/scaffold.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import type { AnnotationColumn } from "../domain/canvas/annotations.js";
import type { AnnotationType } from "../domain/canvas/tables.js";
import type { JsonSchema, MainForm, ServiceTool } from "../contract/tool.js";
import { canvasFor, canvasIdProperty, defaultSmilesColumn } from "./canvas-common.js";
import { countWhere, MAX_WHERE_LENGTH } from "../domain/canvas/row-filter.js";
import { workerOnlyTool } from "./common.js";
import { lipinskiViolations } from "./lipinski_check.js";
import { morganOptionsOf } from "./ecfp4.js";
import { fingerprintWords, morganBitVector, tanimoto } from "../domain/chem/morgan.js";
import { smartsMatchTool } from "./smarts_match.js";
import { STANDARDIZE_MAX_ATOMS, standardizeMolecule } from "../domain/chem/standardize.js";
import { DRUG_RULES, DRUG_RULE_KEYS, druglikeness, drugValues } from "../domain/chem/druglikeness.js";

/** The kinds, each with the columns it adds (name, type, description). A parameterised kind's one column is named by `as`. */
const KINDS = {
  mw: [["mw", "DOUBLE", "Average molecular weight, g/mol (calc_properties)."]],
  exact_mass: [["exact_mass", "DOUBLE", "Monoisotopic mass (calc_properties)."]],
  logp: [["logp", "DOUBLE", "Wildman-Crippen logP (calc_properties)."]],
  tpsa: [["tpsa", "DOUBLE", "Topological polar surface area (calc_properties)."]],
  hbd: [["hbd", "INTEGER", "H-bond donors (calc_properties)."]],
  hba: [["hba", "INTEGER", "H-bond acceptors (calc_properties)."]],
  rotatable_bonds: [["rotatable_bonds", "INTEGER", "Rotatable bonds, strict (calc_properties)."]],
  heavy_atom_count: [["heavy_atom_count", "INTEGER", "Heavy atoms (calc_properties)."]],
  formula: [["formula", "VARCHAR", "Molecular formula (calc_properties)."]],
  qed: [["qed", "DOUBLE", "QED, mean weights (calc_properties)."]],
  sa_score: [["sa_score", "DOUBLE", "Synthetic accessibility, 1 easy to 10 hard (sa_score)."]],
  lipinski_violations: [["lipinski_violations", "INTEGER", "Rule-of-five rules violated (lipinski_check)."]],
  pains: [
    ["pains_count", "INTEGER", "PAINS alerts that fire (pains_check)."],
    ["pains_names", "VARCHAR[]", "Names of the PAINS alerts that fire."],
  ],
  brenk: [
    ["brenk_count", "INTEGER", "Brenk alerts that fire (brenk_check)."],
    ["brenk_names", "VARCHAR[]", "Names of the Brenk alerts that fire."],
  ],
  murcko_scaffold: [["murcko_scaffold", "VARCHAR", "Bemis-Murcko scaffold as RDKit's GetScaffoldForMol gives it ('' for an acyclic molecule)."]],
  generic_scaffold: [["generic_scaffold", "VARCHAR", "MakeScaffoldGeneric of the Murcko scaffold: every atom carbon, every bond single."]],
  inchikey: [["inchikey", "VARCHAR", "Standard InChIKey (NULL where InChI cannot represent the molecule)."]],
  canonical_smiles: [["canonical_smiles", "VARCHAR", "RDKit canonical isomeric SMILES (canonical_smiles)."]],
  ecfp4_similarity: [["", "DOUBLE", "Tanimoto similarity of ECFP4 (radius 2, 2048 bits) to query_smiles, 3 dp (tanimoto)."]],
  substructure_matches: [["", "INTEGER", "Matches of the SMARTS, unique, at most 1000 (smarts_match match_count)."]],
  boiled_egg_gi: [["boiled_egg_gi", "BOOLEAN", "In the BOILED-Egg white: passive GI absorption likely (boiled_egg)."]],
  boiled_egg_bbb: [["boiled_egg_bbb", "BOOLEAN", "In the BOILED-Egg yolk: passive BBB permeation likely (boiled_egg)."]],
  esol_logs: [["esol_logs", "DOUBLE", "ESOL log S, mol/L (admet_profile)."]],
  parent_smiles: [
    [
      "parent_smiles",
      "VARCHAR",
      "Standardised parent: standardize's parent_smiles with its defaults (salts and solvents stripped, largest organic fragment, " +
        "neutralised; a metal complex with no organic parent is itself), the molecule parent: true computes on.",
    ],
  ],
  parent_inchikey: [
    ["parent_inchikey", "VARCHAR", "Standard InChIKey of the parent (NULL where InChI cannot represent it); the same column as inchikey with parent: true."],
  ],
  standardized_smiles: [
    [
      "standardized_smiles",
      "VARCHAR",
      "Cleaned up, not reduced to a parent: standardize with strip_salts, keep_largest_fragment and neutralize false, " +
        "i.e. RDKit's rdMolStandardize.Cleanup (metals disconnected, normalised, reionised; a metal complex with no organic part is itself).",
    ],
  ],
  fsp3: [["fsp3", "DOUBLE", "Fraction of the carbons that are sp3, unrounded (RDKit's CalcFractionCSP3)."]],
  ring_count: [["ring_count", "INTEGER", "Rings of the SSSR (RDKit's CalcNumRings)."]],
  aromatic_ring_count: [["aromatic_ring_count", "INTEGER", "Aromatic rings (RDKit's CalcNumAromaticRings)."]],
  stereocentre_count: [
    ["stereocentre_count", "INTEGER", "Tetrahedral stereocentres, assigned or not (RDKit's CalcNumAtomStereoCenters, legacy perception; sa_score's count)."],
  ],
  unassigned_stereocentre_count: [
    ["unassigned_stereocentre_count", "INTEGER", "Tetrahedral stereocentres the SMILES leaves unassigned (RDKit's CalcNumUnspecifiedAtomStereoCenters)."],
  ],
  formal_charge: [["formal_charge", "INTEGER", "Net formal charge, the sum of the atoms' (with parent: true, standardize's net_charge)."]],
  druglikeness: DRUG_RULE_KEYS.map(
    (k) =>
      [
        `${k}_pass`,
        "BOOLEAN",
        `Passes the ${k} rule set as druglikeness_filters judges it (rules.${k}.pass; ${DRUG_RULES.find((r) => r.key === k)!.citation}).`,
      ] as const,
  ),
} as const satisfies Record<string, ReadonlyArray<readonly [string, AnnotationType, string]>>;

export type AnnotationKind = keyof typeof KINDS;
export const ANNOTATION_KINDS = Object.keys(KINDS) as AnnotationKind[];
const PARAMETERISED: ReadonlySet<AnnotationKind> = new Set(["ecfp4_similarity", "substructure_matches"]);
/** Kinds that are the parent's already: they take no `parent`. */
const OF_THE_PARENT: ReadonlySet<AnnotationKind> = new Set(["parent_smiles", "parent_inchikey"]);
const SINGLE_VALUED = ANNOTATION_KINDS.filter((k) => KINDS[k].length === 1);
const NAME_RE = /^[a-z][a-z0-9_]{0,62}$/;

/** One requested kind as the worker computes it. */
export interface KindRequest {
  kind: AnnotationKind;
  query_smiles?: string;
  smarts?: string;
  /** Computed on the standardised parent (the tools' `parent: true`). */
  parent?: boolean;
}

interface RowArgs {
  smiles: string;
  kinds: KindRequest[];
  /** Check the kinds' parameters only (query_smiles, smarts): their tools' typed errors, before any row runs. */
  check?: boolean;
}

type Cell = string | number | boolean | string[] | null;

/** The value of one computation, or null when that tool answers an error for this molecule. */
function attempt<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}

/** tanimoto's default fingerprint (ECFP4: radius 2, 2,048 bits, no chirality). */
const ECFP4 = morganOptionsOf({});
/** The query fingerprints of ecfp4_similarity columns, per worker (a few queries at most; null: it does not parse). */
const queryFingerprints = new Map<string, Uint32Array | null>();

function queryFingerprint(rdkit: RDKit, smiles: string): Uint32Array | null {
  let fp = queryFingerprints.get(smiles);
  if (fp === undefined) {
    fp = attempt(() => withMol(rdkit, smiles, (mol) => fingerprintWords(morganBitVector(mol, ECFP4)), { argName: "query_smiles" }));
    if (queryFingerprints.size >= 16) queryFingerprints.clear();
    queryFingerprints.set(smiles, fp);
  }
  return fp;
}

/**
 * The standardize tool's parent_smiles, by its own code and on its own parse (its atom limit): with its defaults (the
 * parent), or with every reducing step off (cleaned up only).
 */
function standardizedSmiles(rdkit: RDKit, smiles: string, reduce: boolean): string {
  const options = { stripSalts: reduce, largestFragment: reduce, neutralize: reduce };
  return withMol(rdkit, smiles, (mol) => standardizeMolecule(rdkit, mol, smiles, options).parent, { maxAtoms: STANDARDIZE_MAX_ATOMS });
}

/** What the kind parent_inchikey stands for: inchikey on the parent (one column, one definition, either way it is asked for). */
const PARENT_INCHIKEY: KindRequest = { kind: "inchikey", parent: true };

/**
 * Each kind's cells for one molecule, with the single-molecule tools' own domain code on one parse of the
 * SMILES: the molecule, its descriptors (one get_descriptors) and its graph (one get_json) are read once per
 * molecule and shared by every kind that needs them; QED runs only when qed is asked for, ESOL and the BOILED-Egg
 * from the descriptors and the polar graph (not the whole ADMET profile). The values are those of
 * calc_properties, sa_score, lipinski_check, pains_check, brenk_check, boiled_egg, admet_profile, standardize and
 * druglikeness_filters (test/e2e/workbench.oracle.test.ts and test/tools/canvas_annotate-kinds.oracle.test.ts
 * compare every kind with native RDKit). `parentSmiles` is the row's parent, computed once per row.
 */
function moleculeCells(rdkit: RDKit, mol: RDKitMol, smiles: string, parentSmiles: () => string | null): (k: KindRequest) => Cell[] {
  const ctx = { rdkit, progress: () => {} };
  const memo = new Map<string, unknown>();
  const once = <T>(key: string, fn: () => T): T | null => {
    if (!memo.has(key)) memo.set(key, attempt(fn));
    return memo.get(key) as T | null;
  };
  const descriptors = () => once("descriptors", () => descriptorsOf(mol))!;
  const graph = () => once("graph", () => molGraph(mol))!;
  const polar = () => once("polar", () => polarGraphInfo(mol))!;
  // calc_properties' values (descriptorProperties; the formula and QED from the graph, only when asked for).
  const property = (kind: string): Cell => {
    if (kind === "formula") return once("formula", () => molFormula(graph()));
    if (kind === "qed") return once("qed", () => round(computeQed(rdkit, mol, descriptors(), { graph: graph() }).qed, 3));
    return (once("properties", () => descriptorProperties(descriptors())) as Record<string, Cell> | null)?.[kind] ?? null;
  };
  const egg = () =>
    once("egg", () => {
      const d = descriptors();
      return boiledEggPayload({ logp: d.CrippenClogP, tpsa: d.tpsa, tpsaSP: d.tpsa + polar().sulfurPhosphorusPsa }) as {
        gi_absorbed: boolean;
        bbb_penetrant: boolean;
      };
    });
  const alerts = (set: "pains" | "brenk") => once(set, () => screenAlerts(rdkit, mol, set).map((h) => h.name));
  return (k: KindRequest): Cell[] => {
    switch (k.kind) {
      case "mw":
      case "exact_mass":
      case "logp":
      case "tpsa":
      case "hbd":
      case "hba":
      case "rotatable_bonds":
      case "heavy_atom_count":
      case "formula":
      case "qed":
        return [property(k.kind)];
      case "sa_score":
        return [once("sa", () => round(computeSaScore(rdkit, mol, descriptors(), graph()).score, 3))];
      case "lipinski_violations":
        return [once("lipinski", () => lipinskiViolations(descriptors()))];
      case "pains":
      case "brenk": {
        const names = alerts(k.kind);
        return [names?.length ?? null, names ?? null];
      }
      case "murcko_scaffold":
        return [once("murcko", () => murckoScaffold(rdkit, mol, scaffoldHints(smiles, mol.get_num_atoms())))];
      case "generic_scaffold":
        return [once("generic", () => genericScaffold(rdkit, mol, scaffoldHints(smiles, mol.get_num_atoms())))];
      case "inchikey":
        return [once("inchikey", () => computeRepresentations(rdkit, mol, new Set(["inchikey"])).values.inchikey ?? null)];
      case "canonical_smiles":
        return [once("canonical", () => mol.get_smiles())];
      case "ecfp4_similarity": {
        const query = queryFingerprint(rdkit, k.query_smiles!);
        const fp = once("ecfp4", () => fingerprintWords(morganBitVector(mol, ECFP4)));
        // tanimoto's pair form on the same fingerprints (its similarity, 3 decimals).
        return [query === null || fp === null ? null : round(tanimoto(query, fp), 3)];
      }
      case "substructure_matches":
        return [attempt(() => smartsMatchTool.run({ smiles, smarts: k.smarts! }, ctx).match_count)];
      case "boiled_egg_gi":
        return [egg()?.gi_absorbed ?? null];
      case "boiled_egg_bbb":
        return [egg()?.bbb_penetrant ?? null];
      case "esol_logs":
        return [
          once("esol", () => {
            const d = descriptors();
            return round(esolLogS(d.CrippenClogP, d.amw, d.NumRotatableBonds, polar().aromaticAtoms, d.NumHeavyAtoms), 3);
          }),
        ];
      case "parent_smiles":
        return [parentSmiles()];
      case "parent_inchikey":
        // planColumns sends it as PARENT_INCHIKEY; rowCells computes that on the parent.
        return [null];
      case "standardized_smiles":
        return [once("standardized", () => standardizedSmiles(rdkit, smiles, false))];
      // Unrounded: a ratio of two small counts, which a filter can then compare exactly (fsp3 >= 0.5).
      case "fsp3":
        return [once("fsp3", () => descriptors().FractionCSP3)];
      case "ring_count":
        return [once("rings", () => descriptors().NumRings)];
      case "aromatic_ring_count":
        return [once("aromatic_rings", () => descriptors().NumAromaticRings)];
      case "stereocentre_count":
        return [once("stereocentres", () => descriptors().NumAtomStereoCenters)];
      case "unassigned_stereocentre_count":
        return [once("unassigned_stereocentres", () => descriptors().NumUnspecifiedAtomStereoCenters)];
      case "formal_charge":
        return [once("charge", () => graph().atoms.reduce((sum, a) => sum + a.chg, 0))];
      case "druglikeness": {
        // druglikeness_filters' verdicts, from the same descriptors and carbon count.
        const rules = once("druglikeness", () => druglikeness(drugValues(descriptors(), graph().atoms.filter((a) => a.z === 6).length)).rules);
        return DRUG_RULE_KEYS.map((r) => rules?.[r].pass ?? null);
      }
    }
  };
}

/**
 * Every requested kind's cells for one row, in order: each on the molecule itself, or with `parent` on its
 * standardised parent (standardize's parent_smiles with its defaults, the parent the tools' parent: true compute
 * on), which is computed once per row, read once and shared by every parent column (NULLs where it cannot be
 * computed); its molecule is deleted before the row returns.
 */
function rowCells(rdkit: RDKit, mol: RDKitMol, smiles: string, kinds: readonly KindRequest[]): Cell[] {
  let parent: string | null | undefined;
  const parentSmiles = (): string | null => {
    if (parent === undefined) parent = attempt(() => standardizedSmiles(rdkit, smiles, true));
    return parent;
  };
  const own = moleculeCells(rdkit, mol, smiles, parentSmiles);
  let parentMol: RDKitMol | null = null;
  let ofParent: ((k: KindRequest) => Cell[]) | null | undefined;
  const parentCells = (k: KindRequest): Cell[] => {
    if (ofParent === undefined) {
      const p = parentSmiles();
      parentMol = p === null ? null : attempt(() => parseSmiles(rdkit, p));
      ofParent = parentMol === null ? null : moleculeCells(rdkit, parentMol, p!, parentSmiles);
    }
    return ofParent === null ? KINDS[k.kind].map(() => null) : ofParent(k);
  };
  try {
    return kinds.flatMap((k) => {
      const request = k.kind === "parent_inchikey" ? PARENT_INCHIKEY : k;
      return request.parent === true ? parentCells(request) : own(request);
    });
  } finally {
    (parentMol as RDKitMol | null)?.delete();
  }
}

/**
 * Worker-only: the cells of one row (every column of every requested kind, in order). Not listed in
 * tools/list; canvas_annotate runs it through ChemRunner.runList. A SMILES that does not parse answers
 * INVALID_SMILES (the row's cells stay NULL).
 */
export const canvasAnnotateRowTool = workerOnlyTool<RowArgs, { cells: Cell[] }>({
  toolset: "canvas",
  name: "canvas_annotate_row",
  title: "canvas_annotate: one row",
  description: "Worker-only: computes canvas_annotate's columns for one molecule.",
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  run({ smiles, kinds, check }, { rdkit }) {
    if (check) {
      for (const k of kinds) {
        if (k.query_smiles !== undefined) withMol(rdkit, k.query_smiles, () => true, { argName: "query_smiles" });
        if (k.smarts !== undefined) smartsMatchTool.run({ smiles: "C", smarts: k.smarts }, { rdkit, progress: () => {} });
      }
      return { cells: [] };
    }
    return { cells: withMol(rdkit, smiles, (mol) => rowCells(rdkit, mol, smiles, kinds)) };
  },
});

export type ColumnRequest = AnnotationKind | { kind: AnnotationKind; as?: string; query_smiles?: string; smarts?: string; parent?: boolean };

interface Args {
  canvas_id: string;
  table: string;
  smiles_column?: string;
  where?: string;
  columns: ColumnRequest[];
}

interface Result {
  canvas_id: string;
  table: string;
  smiles_column: string;
  columns: Array<{ name: string; type: string }>;
  complete: boolean;
  rows_total: number;
  rows_done: number;
  rows_left: number;
  rows_computed: number;
  invalid_smiles_rows: number;
  elapsed_ms: number;
  note?: string;
  [k: string]: unknown;
}

/** Rows one step sends to the pool (then writes): small enough that a budget cut loses little. */
const ANNOTATE_STEP_ROWS = 2_000;
/** Time kept at the end of a call for the last write and the answer. */
const ANNOTATE_WRITE_RESERVE_MS = 4_000;

/** The requested kinds as columns (names, types, definitions) and as the worker's requests; typed errors for bad names. */
export function planColumns(columns: readonly ColumnRequest[]): { columns: AnnotationColumn[]; kinds: KindRequest[] } {
  const out: AnnotationColumn[] = [];
  const kinds: KindRequest[] = [];
  const seen = new Set<string>();
  columns.forEach((request, i) => {
    const r = typeof request === "string" ? { kind: request } : request;
    const path = `/columns/${i}`;
    if (!ANNOTATION_KINDS.includes(r.kind)) {
      throw new ToolError("INVALID_ARGUMENTS", `Unknown column kind ${String(r.kind)}`, { path, kinds: ANNOTATION_KINDS }, "Pick kinds from details.kinds.");
    }
    const parameterised = PARAMETERISED.has(r.kind);
    const as = "as" in r ? r.as : undefined;
    if (parameterised && as === undefined) {
      throw new ToolError(
        "INVALID_ARGUMENTS",
        `${r.kind} needs an \`as\` name for its column`,
        { path },
        `Give e.g. { kind: "${r.kind}", as: "sim_to_lead", ... }.`,
      );
    }
    if (as !== undefined && !parameterised && !SINGLE_VALUED.includes(r.kind)) {
      throw new ToolError(
        "INVALID_ARGUMENTS",
        `${r.kind} adds fixed columns and takes no \`as\``,
        { path },
        "Leave out `as` for pains, brenk and druglikeness.",
      );
    }
    const parent = "parent" in r ? (r.parent as unknown) : undefined;
    if (parent !== undefined && typeof parent !== "boolean") {
      throw new ToolError(
        "INVALID_ARGUMENTS",
        "parent must be true or false",
        { path: `${path}/parent` },
        "Send parent: true to compute the kind on the standardised parent.",
      );
    }
    if (parent === true && OF_THE_PARENT.has(r.kind)) {
      throw new ToolError("INVALID_ARGUMENTS", `${r.kind} is the parent's already and takes no parent`, { path: `${path}/parent` }, "Leave out parent.");
    }
    if (as !== undefined && !NAME_RE.test(as)) {
      throw new ToolError(
        "INVALID_ARGUMENTS",
        `Column name ${as} is not allowed`,
        { path: `${path}/as` },
        "Use lower-case letters, digits and _, starting with a letter.",
      );
    }
    const query = "query_smiles" in r ? r.query_smiles : undefined;
    const smarts = "smarts" in r ? r.smarts : undefined;
    if (r.kind === "ecfp4_similarity" && typeof query !== "string") {
      throw new ToolError("INVALID_ARGUMENTS", "ecfp4_similarity needs query_smiles", { path }, "Give the query molecule as query_smiles.");
    }
    if (r.kind === "substructure_matches" && typeof smarts !== "string") {
      throw new ToolError("INVALID_ARGUMENTS", "substructure_matches needs smarts", { path }, "Give the pattern as smarts.");
    }
    const kind: KindRequest = r.kind === "parent_inchikey" ? { ...PARENT_INCHIKEY } : { kind: r.kind };
    if (r.kind === "ecfp4_similarity") kind.query_smiles = query!;
    if (r.kind === "substructure_matches") kind.smarts = smarts!;
    // The parent is in the definition (a column of the molecule and one of its parent never share a name); parent: false is the default.
    if (parent === true) kind.parent = true;
    kinds.push(kind);
    const definition = JSON.stringify(kind);
    for (const [name, type, plainDescription] of KINDS[r.kind]) {
      const column = as ?? (parent === true ? `parent_${name}` : name);
      const description = parent === true ? `Of the standardised parent (parent: true): ${plainDescription}` : plainDescription;
      if (seen.has(column)) {
        throw new ToolError("INVALID_ARGUMENTS", `Two requested columns are named ${column}`, { path, column }, "Give one of them another name with `as`.");
      }
      seen.add(column);
      // The column says its unit as the tools' fields do (contract/units.ts), whatever `as` names it.
      const unitName = name !== "" ? name : r.kind === "ecfp4_similarity" ? "similarity" : r.kind;
      out.push({ name: column, type, description: type === "DOUBLE" ? (describedWithUnit(unitName, description) ?? description) : description, definition });
    }
  });
  return { columns: out, kinds };
}

// The object first: what tools/list shows hosts (server/host-schema.ts), since only it carries as, query_smiles,
// smarts and parent; a bare kind name is accepted too.
const KIND_ITEM: JsonSchema = {
  anyOf: [
    {
      type: "object",
      properties: {
        kind: { type: "string", enum: ANNOTATION_KINDS, description: "Column kind." },
        as: { type: "string", minLength: 1, maxLength: 63, description: "Column name (needed for similarity and substructure)." },
        query_smiles: { type: "string", minLength: 1, maxLength: 10_000, description: "ecfp4_similarity: the query molecule." },
        smarts: { type: "string", minLength: 1, maxLength: 10_000, description: "substructure_matches: the pattern." },
        parent: { type: "boolean", default: false, description: "On the standardised parent (names get parent_)." },
      },
      required: ["kind"],
      additionalProperties: false,
    },
    { type: "string", enum: ANNOTATION_KINDS },
  ],
};

/** canvas_annotate's answer, which the per-molecule tools' canvas forms (annotateForm) answer too. */
const ANNOTATE_OUTPUT: JsonSchema = {
  type: "object",
  properties: {
    canvas_id: { type: "string" },
    table: { type: "string" },
    smiles_column: { type: "string" },
    where: { type: "string", description: "The condition the rows were read with (rows_total counts those rows)." },
    columns: {
      type: "array",
      description: "The computed columns of this call.",
      items: {
        type: "object",
        properties: { name: { type: "string" }, type: { type: "string" } },
        required: ["name", "type"],
        additionalProperties: false,
      },
    },
    complete: { type: "boolean", description: "Every row holds these columns; false: call again with the same arguments to continue." },
    rows_total: { type: "integer", minimum: 0 },
    rows_done: { type: "integer", minimum: 0, description: "Rows holding these columns now." },
    rows_left: { type: "integer", minimum: 0 },
    rows_computed: { type: "integer", minimum: 0, description: "Rows computed by this call." },
    invalid_smiles_rows: { type: "integer", minimum: 0, description: "Rows of this call whose SMILES is NULL or does not parse: their columns are NULL." },
    elapsed_ms: { type: "integer", minimum: 0 },
    note: { type: "string" },
  },
  required: [
    "canvas_id",
    "table",
    "smiles_column",
    "columns",
    "complete",
    "rows_total",
    "rows_done",
    "rows_left",
    "rows_computed",
    "invalid_smiles_rows",
    "elapsed_ms",
  ],
  additionalProperties: false,
};

/**
 * The canvas form of a per-molecule tool (murcko_scaffold, standardize, druglikeness_filters): canvas_id + table
 * (+ smiles_column, where) run as canvas_annotate with the columns `columns` names for these arguments, so the
 * values are the tool's own code per row, with canvas_annotate's bookkeeping, steps and answer.
 */
export function annotateForm<A extends { canvas_id?: string; table?: string; smiles_column?: string; where?: string }>(
  canvases: () => CanvasManager,
  columns: (args: A) => ColumnRequest[],
): MainForm<A> {
  const annotate = createCanvasAnnotateTool(canvases);
  return {
    applies: (args) => args.canvas_id !== undefined,
    // canvas_annotate's own budget: the tool's single-molecule one (murcko_scaffold's 10 s) would end each step early.
    budgetMs: annotate.budgetMs,
    outputSchema: { ...ANNOTATE_OUTPUT, description: "The canvas form: the values written as columns of the table (as canvas_annotate answers)." },
    run: (args, ctx) =>
      annotate.run(
        {
          canvas_id: args.canvas_id!,
          table: args.table!,
          columns: columns(args),
          ...(args.smiles_column !== undefined ? { smiles_column: args.smiles_column } : {}),
          ...(args.where !== undefined ? { where: args.where } : {}),
        },
        ctx,
      ),
  };
}

export function createCanvasAnnotateTool(canvases: () => CanvasManager = getCanvasManager): ServiceTool<Args, Result> {
  return {
    kind: "service",
    toolset: "canvas",
    name: "canvas_annotate",
    ui: { resourceUri: TABLE_APP_URI },
    title: "Canvas: chemistry as columns",
    description: "Add chemistry columns (kinds) to a canvas table, computed as the single-molecule tools do; complete: false means call again.",
    annotations: CANVAS_WRITE_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        canvas_id: canvasIdProperty(),
        table: { type: "string", minLength: 1, maxLength: 63, description: "The table." },
        smiles_column: {
          type: "string",
          minLength: 1,
          maxLength: 63,
          description: "SMILES column (default smiles).",
        },
        where: {
          type: "string",
          minLength: 1,
          maxLength: MAX_WHERE_LENGTH,
          description: "SQL row filter (other rows stay NULL).",
        },
        columns: {
          type: "array",
          minItems: 1,
          maxItems: 32,
          items: KIND_ITEM,
          description: "Column specs, or bare kind names.",
        },
      },
      required: ["canvas_id", "table", "columns"],
      additionalProperties: false,
    },
    outputSchema: ANNOTATE_OUTPUT,
    errors: ["CANVAS_DISABLED", "CANVAS_NOT_FOUND", "INVALID_SMILES", "INVALID_SMARTS"],
    budgetMs: 50_000,
    async run(args, ctx) {
      const started = Date.now();
      const chem = ctx.chem;
      if (!chem?.runList) throw new Error("canvas_annotate needs the chemistry pool");
      const runList = chem.runList.bind(chem);
      const plan = planColumns(args.columns);
      for (const column of plan.columns) await canvases().refuseKeyword(column.name, "/columns");
      // Parameters checked once, in a worker, before any row runs (an invalid SMARTS would otherwise be a NULL in every row).
      if (plan.kinds.some((k) => k.query_smiles !== undefined || k.smarts !== undefined)) {
        const [checked] = await runList(canvasAnnotateRowTool, [{ smiles: "C", kinds: plan.kinds, check: true }], { budgetMs: ANNOTATE_WRITE_RESERVE_MS });
        if (checked && !checked.ok) throw new ToolError(checked.error.code, checked.error.message, checked.error.details, checked.error.hint);
      }
      const canvas = await canvasFor(canvases(), args.canvas_id, ctx);
      const smilesColumn = defaultSmilesColumn(canvas, args.table, args.smiles_column);
      if (!canvas.tables.has(args.table)) throw canvas.noTable(args.table);
      // The condition runs once as a count (every query lock applies) before any column is added.
      if (args.where !== undefined) await countWhere(canvas, args.table, args.where, ctx.signal);
      const where = args.where?.trim();
      const work = await canvas.prepareAnnotation(args.table, smilesColumn, plan.columns, where);
      const pending = work.pending;
      let computed = 0;
      let invalid = 0;
      let next = 0;
      let stopped = false;
      while (next < pending.length && !stopped) {
        const left = ctx.deadline - Date.now() - ANNOTATE_WRITE_RESERVE_MS;
        if (left <= 0) break;
        const step = pending.slice(next, next + ANNOTATE_STEP_ROWS);
        const runnable = step.filter((p) => p.smiles !== null && p.smiles.trim() !== "");
        const outcomes = runnable.length
          ? await runList(
              canvasAnnotateRowTool,
              runnable.map((p) => ({ smiles: p.smiles!, kinds: plan.kinds })),
              { budgetMs: left, onChunk: (done) => ctx.progress(next + done, pending.length, `${next + done} of ${pending.length} rows computed`) },
            )
          : [];
        const byRow = new Map<number, (typeof outcomes)[number]>();
        runnable.forEach((p, i) => byRow.set(p.row, outcomes[i]!));
        const rows: number[] = [];
        const values: Cell[][] = [];
        const empty = plan.columns.map(() => null);
        for (const p of step) {
          const outcome = byRow.get(p.row);
          if (outcome && !outcome.ok && outcome.error.code === "TIMEOUT") {
            stopped = true;
            continue;
          }
          rows.push(p.row);
          if (outcome?.ok) values.push(outcome.value.cells);
          else {
            invalid++;
            values.push(empty);
          }
        }
        await canvas.writeAnnotation(args.table, plan.columns, rows, values, ctx.signal);
        computed += rows.length;
        next += step.length;
      }
      const rowsLeft = pending.length - computed;
      const result: Result = {
        canvas_id: canvas.id,
        table: args.table,
        smiles_column: smilesColumn,
        ...(where !== undefined ? { where } : {}),
        columns: plan.columns.map((c) => ({ name: c.name, type: c.type })),
        complete: rowsLeft === 0,
        rows_total: work.total,
        rows_done: work.total - rowsLeft,
        rows_left: rowsLeft,
        rows_computed: computed,
        invalid_smiles_rows: invalid,
        elapsed_ms: Date.now() - started,
      };
      if (rowsLeft > 0) result.note = `${rowsLeft} rows are left: call canvas_annotate again with the same arguments to continue where this call stopped.`;
      return result;
    },
  };
}

export const canvasAnnotateTool = createCanvasAnnotateTool();

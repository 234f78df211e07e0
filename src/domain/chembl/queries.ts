/**
 * What the service asks ChEMBL: the query types of the molecule, target and bioactivity searches and the
 * URL parameters each one becomes (only the fields the normalisers read, via `only=`).
 */
import { ACTIVITY_FIELDS, MOLECULE_FIELDS, TARGET_FIELDS } from "./normalise.js";
import type { Param } from "./request.js";
import type { MoleculeRow, Source, TargetRow } from "./types.js";

/** molecule/search (Elasticsearch) reports at most this many hits. */
export const NAME_SEARCH_CEILING = 10_000;
/** Substructure search stops at this many hits (and filters max_phase only within them). */
export const SUBSTRUCTURE_CEILING = 30_000;

export type MoleculeSearchType = "name" | "exact" | "similarity" | "substructure";

export interface MoleculeSearch {
  type: MoleculeSearchType;
  /** name: a name, ChEMBL ID or InChIKey (the tool decides which; see `by`). */
  query?: string;
  by?: "text" | "chembl_id" | "inchi_key";
  /** exact / similarity / substructure. */
  smiles?: string;
  threshold?: number;
  maxPhaseMin?: number;
  limit: number;
  offset: number;
}

export interface MoleculeSearchResult {
  molecules: MoleculeRow[];
  total_count: number | null;
  totalCountCapped: boolean;
  /** What the caller should know about where or how far this answer came (an offline search sent to the web API). */
  notices?: string[];
  /** For a name that found nothing, the nearest names the offline dump holds. */
  didYouMean?: string[];
  source: Source;
}

export interface TargetSearch {
  query?: string;
  geneSymbol?: string;
  accession?: string;
  targetChemblId?: string;
  organism?: string;
  targetType?: string;
  limit: number;
  offset: number;
}

export type TargetMatch = "pref_name" | "gene_symbol" | "accession" | "target_chembl_id" | "filters";

export interface TargetSearchResult {
  targets: TargetRow[];
  total_count: number | null;
  matched_by: TargetMatch;
  source: Source;
}

export type PotencyView = "potency_ranked" | "null_potency";

/** One bioactivity view: the filters and the total order it is walked in. */
export interface ActivityQuery {
  moleculeChemblId?: string;
  /** Set instead of moleculeChemblId when alternate forms are included (the family's parent). */
  parentMoleculeChemblId?: string;
  targetChemblId?: string;
  view: PotencyView;
  standardType?: string;
  pchemblMin?: number;
  assayType?: string;
  organism?: string;
  /** "wild_type": assays with no recorded variant; otherwise one mutation as ChEMBL writes it (e.g. T790M). */
  variant?: { kind: "wild_type" } | { kind: "mutation"; mutation: string };
}

/** The URL parameters of one molecule search (exported for the URL tests). */
export function moleculeSearchRequest(q: MoleculeSearch): { path: string; params: Param[]; ceiling: number | null } {
  const only: Param = ["only", MOLECULE_FIELDS.join(",")];
  const phase: Param[] = q.maxPhaseMin !== undefined ? [["max_phase__gte", String(q.maxPhaseMin)]] : [];
  const page: Param[] = [
    ["limit", String(q.limit)],
    ["offset", String(q.offset)],
  ];
  switch (q.type) {
    case "name":
      if (q.by === "chembl_id") return { path: "molecule", params: [["molecule_chembl_id", q.query!], ...phase, only, ...page], ceiling: null };
      if (q.by === "inchi_key")
        return { path: "molecule", params: [["molecule_structures__standard_inchi_key", q.query!], ...phase, only, ...page], ceiling: null };
      return { path: "molecule/search", params: [["q", q.query!], ...phase, only, ...page], ceiling: NAME_SEARCH_CEILING };
    case "exact":
      return { path: "molecule", params: [["molecule_structures__canonical_smiles__flexmatch", q.smiles!], ...phase, only, ...page], ceiling: null };
    case "similarity":
      return { path: "similarity", params: [["smiles", q.smiles!], ["similarity", String(q.threshold ?? 70)], ...phase, only, ...page], ceiling: null };
    case "substructure":
      return { path: "substructure", params: [["smiles", q.smiles!], ...phase, only, ...page], ceiling: SUBSTRUCTURE_CEILING };
  }
}

export function targetSearchParams(q: TargetSearch, match: TargetMatch): Param[] {
  const params: Param[] = [];
  if (q.targetChemblId) params.push(["target_chembl_id", q.targetChemblId]);
  if (q.accession) params.push(["target_components__accession", q.accession]);
  const gene = match === "gene_symbol" ? (q.geneSymbol ?? q.query) : q.geneSymbol;
  if (gene) params.push(["target_components__target_component_synonyms__component_synonym__iexact", gene]);
  if (q.query && match === "pref_name") params.push(["pref_name__icontains", q.query]);
  if (q.organism) params.push(["organism__iexact", q.organism]);
  if (q.targetType) params.push(["target_type", q.targetType]);
  params.push(["only", TARGET_FIELDS.join(",")], ["order_by", "target_chembl_id"], ["limit", String(q.limit)], ["offset", String(q.offset)]);
  return params;
}

/**
 * The filters and total order of one bioactivity view (exported for the spill, which walks the same
 * view): the ranked view holds the rows with a pchembl_value, ordered -pchembl_value then activity_id;
 * the null-potency view holds exactly the others, ordered by activity_id. ChEMBL sorts NULLs first on a
 * descending order, so the ranked view must exclude them explicitly.
 */
export function activityParams(q: ActivityQuery): Param[] {
  const p: Param[] = [];
  if (q.parentMoleculeChemblId) p.push(["parent_molecule_chembl_id", q.parentMoleculeChemblId]);
  else if (q.moleculeChemblId) p.push(["molecule_chembl_id", q.moleculeChemblId]);
  if (q.targetChemblId) p.push(["target_chembl_id", q.targetChemblId]);
  if (q.standardType) p.push(["standard_type__iexact", q.standardType]);
  if (q.assayType) p.push(["assay_type", q.assayType]);
  if (q.organism) p.push(["target_organism__iexact", q.organism]);
  if (q.variant?.kind === "wild_type") p.push(["assay_variant_mutation__isnull", "true"]);
  else if (q.variant?.kind === "mutation") p.push(["assay_variant_mutation", q.variant.mutation]);
  if (q.view === "potency_ranked") {
    p.push(["pchembl_value__isnull", "false"]);
    if (q.pchemblMin !== undefined) p.push(["pchembl_value__gte", String(q.pchemblMin)]);
    p.push(["order_by", "-pchembl_value"], ["order_by", "activity_id"]);
  } else {
    p.push(["pchembl_value__isnull", "true"], ["order_by", "activity_id"]);
  }
  p.push(["only", ACTIVITY_FIELDS.join(",")]);
  return p;
}

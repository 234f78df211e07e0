/**
 * Structural-alert screens equal to RDKit's FilterCatalog: PAINS (families A, B, C; Baell & Holloway,
 * J. Med. Chem. 2010, 53, 2719-2740) and Brenk (Brenk et al., ChemMedChem 2008, 3, 435-444).
 *
 * Data: assets/pains.json (scripts/build-pains-asset.py, from Debian's rdkit-data wehi_pains.csv) and
 * assets/brenk.json (the published table, typed in from RDKit's brenk.in), both with RDKit's BSD notice.
 *
 * How FilterCatalog matches, and how this module reproduces it:
 * - Every pattern is compiled with SmartsToMol(smarts, mergeHs=true): explicit [#1] neighbours in the
 *   SMARTS become H-count constraints on their heavy atom, and the pattern is matched against the
 *   molecule as parsed (implicit hydrogens). 386 PAINS patterns depend on this; matched naively they miss
 *   most true positives. MinimalLib's get_qmol cannot merge query Hs, so the PAINS asset carries each
 *   pattern's merged form as RDKit itself writes it ("query_smarts"), which compiles to the same query.
 *   No explicit-H copy of the molecule is needed, and matched atoms are the molecule's own atoms.
 * - An entry fires when its pattern matches at least once: in RDKit's tables every PAINS and Brenk entry
 *   has a maximum count of 0, which FilterCatalog turns into minCount 1 (any match).
 * - Matched atoms are those of the first match FilterCatalog's getFilterMatches would report: target atom
 *   indices in query-atom order.
 */
import { readFileSync } from "node:fs";
import { assetPath } from "../assets.js";
import { firstMatch } from "./match.js";
import type { RDKit, RDKitMol } from "./rdkit.js";
import { compileAll, compiledPerRdkit } from "./rdkit-cache.js";

export type AlertSetName = "pains" | "brenk";

interface AlertEntry {
  name: string;
  /** PAINS: "A", "B" or "C"; Brenk: "Brenk" (the set has no sub-families). */
  family: string;
  /** The published SMARTS. */
  smarts: string;
  /** The SMARTS that is compiled (PAINS: merged hydrogens; Brenk: the published SMARTS). */
  querySmarts: string;
}

export interface AlertHit {
  name: string;
  family: string;
  /** Target atom indices of the first match, in query-atom order. */
  matched_atoms: number[];
}

export interface AlertSetInfo {
  /** What the set is called in answers. */
  label: string;
  citation: string;
  entries: readonly AlertEntry[];
}

interface PainsAsset {
  source: { citation: string };
  entries: Array<{ name: string; family: string; smarts: string; query_smarts: string }>;
}

interface BrenkAsset {
  source: { citation: string };
  entries: Array<{ name: string; smarts: string }>;
}

function readJson(name: string): unknown {
  return JSON.parse(readFileSync(assetPath(name), "utf8")) as unknown;
}

function malformed(name: string): Error {
  return new Error(`Malformed alert asset ${name}; see its generator or source note`);
}

const isString = (v: unknown): v is string => typeof v === "string" && v.length > 0;

function loadPains(): AlertSetInfo {
  const data = readJson("pains.json") as Partial<PainsAsset>;
  if (!isString(data.source?.citation) || !Array.isArray(data.entries)) throw malformed("pains.json");
  const entries = data.entries.map((e) => {
    if (!isString(e.name) || !["A", "B", "C"].includes(e.family) || !isString(e.smarts) || !isString(e.query_smarts)) throw malformed("pains.json");
    return { name: e.name, family: e.family, smarts: e.smarts, querySmarts: e.query_smarts };
  });
  if (entries.length !== 480) throw malformed("pains.json");
  return { label: "PAINS (families A, B, C)", citation: data.source.citation, entries };
}

function loadBrenk(): AlertSetInfo {
  const data = readJson("brenk.json") as Partial<BrenkAsset>;
  if (!isString(data.source?.citation) || !Array.isArray(data.entries)) throw malformed("brenk.json");
  const entries = data.entries.map((e) => {
    if (!isString(e.name) || !isString(e.smarts)) throw malformed("brenk.json");
    return { name: e.name, family: "Brenk", smarts: e.smarts, querySmarts: e.smarts };
  });
  if (entries.length !== 105) throw malformed("brenk.json");
  return { label: "Brenk", citation: data.source.citation, entries };
}

export const ALERT_SETS: Readonly<Record<AlertSetName, AlertSetInfo>> = { pains: loadPains(), brenk: loadBrenk() };

// ---- compiled queries: once per RDKit module (i.e. per thread), never deleted ----

const perModule = compiledPerRdkit(() => new Map<AlertSetName, RDKitMol[]>());

function queriesFor(rdkit: RDKit, set: AlertSetName): RDKitMol[] {
  const cache = perModule(rdkit);
  let compiled = cache.get(set);
  if (compiled === undefined) {
    compiled = compileAll(rdkit, `${set} alert`, (c) => ALERT_SETS[set].entries.map((entry) => c.query(entry.querySmarts, entry.name)));
    cache.set(set, compiled);
  }
  return compiled;
}

/** Every entry of `set` that fires on `mol`, in catalog order (as FilterCatalog.GetMatches lists them). */
export function screenAlerts(rdkit: RDKit, mol: RDKitMol, set: AlertSetName): AlertHit[] {
  const queries = queriesFor(rdkit, set);
  const entries = ALERT_SETS[set].entries;
  const hits: AlertHit[] = [];
  for (let i = 0; i < queries.length; i++) {
    const atoms = firstMatch(mol, queries[i]!);
    if (atoms !== undefined) hits.push({ name: entries[i]!.name, family: entries[i]!.family, matched_atoms: atoms });
  }
  return hits;
}

/**
 * QED, the quantitative estimate of drug-likeness (Bickerton et al., Nature Chemistry 2012, 4, 90-98,
 * doi:10.1038/nchem.1243), computed as RDKit's rdkit.Chem.QED does (descriptor version 1.1.0).
 *
 * The published parameters (ADS functions, weights, acceptor and structural-alert SMARTS) are read from
 * assets/qed-parameters.json, which scripts/build-qed-asset.py derives from Debian's RDKit package.
 *
 * The eight inputs, as in QED.properties():
 *   MW     RDKit average molecular weight (get_descriptors "amw")
 *   ALOGP  Crippen logP ("CrippenClogP")
 *   HBA    sum over the acceptor SMARTS of their match counts (RDKit's default cap of 1000 matches each)
 *   HBD    "NumHBD"
 *   PSA    "tpsa" (no S and P contributions)
 *   ROTB   "NumRotatableBonds" (the strict definition)
 *   AROM   len(GetSSSR(DeleteSubstructs(mol, AliphaticRings))), see aromProperty()
 *   ALERTS number of structural-alert SMARTS that match at least once
 *
 * The molecule must have its hydrogens removed the way RDKit's RemoveHs does (QED.py calls it first);
 * molecules from parseSmiles() already are.
 */
import { readFileSync } from "node:fs";
import { assetPath } from "../assets.js";
import { molGraph, type MolGraph } from "./graph.js";
import { hasMatch, substructMatches } from "./match.js";
import type { RDKit, RDKitDescriptors, RDKitMol } from "./rdkit.js";
import { compileAll, compiledPerRdkit } from "./rdkit-cache.js";

export const QED_PROPERTY_NAMES = ["MW", "ALOGP", "HBA", "HBD", "PSA", "ROTB", "AROM", "ALERTS"] as const;
export type QedPropertyName = (typeof QED_PROPERTY_NAMES)[number];
export type QedProperties = Record<QedPropertyName, number>;
export type QedWeights = Readonly<Record<QedPropertyName, number>>;

export interface AdsParameter {
  A: number;
  B: number;
  C: number;
  D: number;
  E: number;
  F: number;
  DMAX: number;
}

export interface QedResult {
  /** Unrounded QED in (0, 1]. */
  qed: number;
  /** The eight raw (unmapped) inputs. */
  properties: QedProperties;
}

interface QedAsset {
  ads_parameters: Record<QedPropertyName, AdsParameter>;
  weights: Record<"WEIGHT_MEAN" | "WEIGHT_MAX" | "WEIGHT_NONE", QedWeights>;
  aliphatic_rings_smarts: string;
  acceptor_smarts: string[];
  structural_alert_smarts: string[];
}

/**
 * RDKit's SubstructMatchParameters.maxMatches default, which QED.py relies on (GetSubstructMatches and
 * DeleteSubstructs run with it). Passing it explicitly keeps our counts equal to RDKit's even if
 * MinimalLib's default ever changes. Only molecules with more than 1000 matching atoms are affected.
 */
const RDKIT_DEFAULT_MAX_MATCHES = 1000;

function loadAsset(): QedAsset {
  const file = assetPath("qed-parameters.json");
  const data = JSON.parse(readFileSync(file, "utf8")) as Partial<QedAsset>;
  const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
  const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
  const ok =
    data.ads_parameters !== undefined &&
    data.weights !== undefined &&
    typeof data.aliphatic_rings_smarts === "string" &&
    isStrings(data.acceptor_smarts) &&
    isStrings(data.structural_alert_smarts) &&
    QED_PROPERTY_NAMES.every((name) => {
      const p = data.ads_parameters?.[name];
      return p !== undefined && (["A", "B", "C", "D", "E", "F", "DMAX"] as const).every((k) => isNum(p[k]));
    }) &&
    (["WEIGHT_MEAN", "WEIGHT_MAX", "WEIGHT_NONE"] as const).every((w) => QED_PROPERTY_NAMES.every((name) => isNum(data.weights?.[w]?.[name])));
  if (!ok) throw new Error(`Malformed QED asset ${file}; regenerate it with scripts/build-qed-asset.py`);
  return data as QedAsset;
}

const ASSET = loadAsset();

export const ADS_PARAMETERS: Readonly<Record<QedPropertyName, Readonly<AdsParameter>>> = ASSET.ads_parameters;
export const WEIGHT_MEAN: QedWeights = ASSET.weights.WEIGHT_MEAN;

// ---- compiled queries: once per RDKit module (i.e. per thread), never deleted ----

interface QedQueries {
  aliphaticRings: RDKitMol;
  acceptors: RDKitMol[];
  alerts: RDKitMol[];
}

const queriesFor = compiledPerRdkit((rdkit): QedQueries =>
  compileAll(rdkit, "QED", (c) => ({
    aliphaticRings: c.query(ASSET.aliphatic_rings_smarts),
    acceptors: ASSET.acceptor_smarts.map((s) => c.query(s)),
    alerts: ASSET.structural_alert_smarts.map((s) => c.query(s)),
  })),
);

// ---- the eight properties ----

/** Number of unique matches of each acceptor pattern, summed (as QED.py's HBA). */
function acceptorCount(mol: RDKitMol, queries: QedQueries): number {
  let total = 0;
  for (const q of queries.acceptors) total += substructMatches(mol, q, RDKIT_DEFAULT_MAX_MATCHES).length;
  return total;
}

function alertCount(mol: RDKitMol, queries: QedQueries): number {
  let count = 0;
  for (const q of queries.alerts) if (hasMatch(mol, q)) count++;
  return count;
}

/**
 * AROM = len(Chem.GetSSSR(Chem.DeleteSubstructs(mol, AliphaticRings))), reproduced without building a new
 * molecule. In RDKit, when DeleteSubstructs removes nothing the copy keeps the sanitised ring info and
 * GetSSSR reports that (RDKit's symmetrised SSSR: 6 for triptycene, 32 for C60), i.e. the descriptor
 * NumRings. When it removes atoms, ring info is recomputed from scratch on the remainder and the SSSR
 * size is the cyclomatic number, edges - vertices + connected components. Both branches were checked
 * against native RDKit (first_5K.smi plus cage molecules).
 */
function aromProperty(mol: RDKitMol, descriptors: RDKitDescriptors, queries: QedQueries, graph: () => MolGraph): number {
  const matches = substructMatches(mol, queries.aliphaticRings, RDKIT_DEFAULT_MAX_MATCHES);
  if (matches.length === 0) return descriptors.NumRings;
  const { atoms, bonds } = graph();
  const removed = new Uint8Array(atoms.length);
  for (const match of matches) for (const idx of match) removed[idx] = 1;
  // Union-find over the remaining atoms.
  const parent = Int32Array.from(atoms.keys());
  const find = (x: number): number => {
    while (parent[x] !== x) {
      const up = parent[parent[x]!]!;
      parent[x] = up;
      x = up;
    }
    return x;
  };
  let vertices = 0;
  for (let i = 0; i < atoms.length; i++) if (!removed[i]) vertices++;
  let edges = 0;
  let components = vertices;
  for (const { begin: i, end: j } of bonds) {
    if (removed[i] || removed[j]) continue;
    edges++;
    const ri = find(i);
    const rj = find(j);
    if (ri !== rj) {
      parent[ri] = rj;
      components--;
    }
  }
  return edges - vertices + components;
}

/**
 * The eight QED inputs of `mol`, exactly as RDKit's QED.properties(). `descriptors` must be
 * descriptorsOf(mol); `graph` may pass an already parsed molGraph(mol) to save a get_json() call.
 */
function qedProperties(rdkit: RDKit, mol: RDKitMol, descriptors: RDKitDescriptors, graph?: MolGraph): QedProperties {
  const queries = queriesFor(rdkit);
  let parsed = graph;
  const lazyGraph = (): MolGraph => (parsed ??= molGraph(mol));
  return {
    MW: descriptors.amw,
    ALOGP: descriptors.CrippenClogP,
    HBA: acceptorCount(mol, queries),
    HBD: descriptors.NumHBD,
    PSA: descriptors.tpsa,
    ROTB: descriptors.NumRotatableBonds,
    AROM: aromProperty(mol, descriptors, queries, lazyGraph),
    ALERTS: alertCount(mol, queries),
  };
}

/** The asymmetric double sigmoidal (ADS) desirability of `x`, scaled to (0, 1] by DMAX (QED.py's ads()). */
export function ads(x: number, p: Readonly<AdsParameter>): number {
  const exp1 = 1 + Math.exp((-1 * (x - p.C + p.D / 2)) / p.E);
  const exp2 = 1 + Math.exp((-1 * (x - p.C - p.D / 2)) / p.F);
  const dx = p.A + (p.B / exp1) * (1 - 1 / exp2);
  return dx / p.DMAX;
}

/** Weighted geometric mean of the desirabilities (QED.py's qed() with given properties). */
function qedFromProperties(properties: QedProperties, weights: QedWeights = WEIGHT_MEAN): number {
  let t = 0;
  let wsum = 0;
  for (const name of QED_PROPERTY_NAMES) {
    t += weights[name] * Math.log(ads(properties[name], ADS_PARAMETERS[name]));
    wsum += weights[name];
  }
  return Math.exp(t / wsum);
}

/** QED of `mol` (default weights WEIGHT_MEAN, like RDKit's QED.qed) with its eight inputs. */
export function computeQed(rdkit: RDKit, mol: RDKitMol, descriptors: RDKitDescriptors, options: { weights?: QedWeights; graph?: MolGraph } = {}): QedResult {
  const properties = qedProperties(rdkit, mol, descriptors, options.graph);
  return { qed: qedFromProperties(properties, options.weights ?? WEIGHT_MEAN), properties };
}

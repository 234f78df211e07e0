/**
 * The calc_properties payload: RDKit descriptors, the molecular formula and QED, from one
 * get_descriptors() and at most one get_json() call per molecule. rawProperties() exposes the unrounded
 * numbers so other tools (e.g. Lipinski) reuse the same computation.
 */
import { descriptorsOf, round } from "./rdkit.js";
import type { RDKit, RDKitDescriptors, RDKitMol } from "./rdkit.js";
import { elementSymbol, molGraph, type MolGraph } from "./graph.js";
import { computeQed } from "./qed.js";
import type { QedProperties } from "./qed.js";

/**
 * Molecular formula as RDKit's rdMolDescriptors.CalcMolFormula(mol) with its defaults: isotopes are
 * folded into their element ([2H] counts as H, [13C] as C); C first, then H, then the other symbols in
 * code-unit order (so "*" for dummy atoms sorts first among them) - H comes first even without carbon,
 * as RDKit does ("H2O", "H4BCl-2"); a count of 1 is omitted; the net formal charge is appended as
 * "+", "-", "+2", "-3".
 */
export function molFormula(graph: MolGraph): string {
  const counts = new Map<string, number>();
  const add = (symbol: string, n: number): void => {
    if (n > 0) counts.set(symbol, (counts.get(symbol) ?? 0) + n);
  };
  let charge = 0;
  for (const atom of graph.atoms) {
    add(elementSymbol(atom.z), 1);
    add("H", atom.hs);
    charge += atom.chg;
  }
  const others = [...counts.keys()].filter((s) => s !== "C" && s !== "H").sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const order = [...(counts.has("C") ? ["C"] : []), ...(counts.has("H") ? ["H"] : []), ...others];
  let formula = "";
  for (const symbol of order) {
    const n = counts.get(symbol) ?? 0;
    formula += n === 1 ? symbol : `${symbol}${n}`;
  }
  if (charge > 0) formula += charge === 1 ? "+" : `+${charge}`;
  else if (charge < 0) formula += charge === -1 ? "-" : `-${-charge}`;
  return formula;
}

/** Unrounded values behind calc_properties, for reuse by other tools. */
export interface RawProperties {
  descriptors: RDKitDescriptors;
  formula: string;
  qed: number;
  qedProperties: QedProperties;
}

export function rawProperties(rdkit: RDKit, mol: RDKitMol): RawProperties {
  const descriptors = descriptorsOf(mol);
  const graph = molGraph(mol);
  const { qed, properties } = computeQed(rdkit, mol, descriptors, { graph });
  return { descriptors, formula: molFormula(graph), qed, qedProperties: properties };
}

/** The calc_properties payload. */
export interface CalcPropertiesPayload {
  /** Average molecular weight (g/mol), 3 decimals. */
  mw: number;
  /** Monoisotopic mass, 4 decimals. */
  exact_mass: number;
  /** Wildman-Crippen logP, 3 decimals. */
  logp: number;
  /** Topological polar surface area (N and O only), 2 decimals. */
  tpsa: number;
  hbd: number;
  hba: number;
  /** Strict definition (RDKit's default). */
  rotatable_bonds: number;
  heavy_atom_count: number;
  formula: string;
  /** QED with RDKit's mean weights, 3 decimals. */
  qed: number;
  /** The eight QED inputs; MW, ALOGP and PSA rounded like mw, logp and tpsa. */
  qed_properties: QedProperties;
}

/** calc_properties' descriptor values as it answers them (rounded), without formula and QED: canvas_annotate's columns too. */
export function descriptorProperties(d: RDKitDescriptors): Omit<CalcPropertiesPayload, "formula" | "qed" | "qed_properties"> {
  return {
    mw: round(d.amw, 3),
    exact_mass: round(d.exactmw, 4),
    logp: round(d.CrippenClogP, 3),
    tpsa: round(d.tpsa, 2),
    hbd: d.NumHBD,
    hba: d.NumHBA,
    rotatable_bonds: d.NumRotatableBonds,
    heavy_atom_count: d.NumHeavyAtoms,
  };
}

export function propertiesPayload(raw: RawProperties): CalcPropertiesPayload {
  const q = raw.qedProperties;
  return {
    ...descriptorProperties(raw.descriptors),
    formula: raw.formula,
    qed: round(raw.qed, 3),
    qed_properties: {
      MW: round(q.MW, 3),
      ALOGP: round(q.ALOGP, 3),
      HBA: q.HBA,
      HBD: q.HBD,
      PSA: round(q.PSA, 2),
      ROTB: q.ROTB,
      AROM: q.AROM,
      ALERTS: q.ALERTS,
    },
  };
}

export function computeProperties(rdkit: RDKit, mol: RDKitMol): CalcPropertiesPayload {
  return propertiesPayload(rawProperties(rdkit, mol));
}

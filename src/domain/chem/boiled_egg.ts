/**
 * BOILED-Egg (Brain Or IntestinaL EstimateD permeation; Daina & Zoete, ChemMedChem 2016, 11, 1117-1121,
 * doi:10.1002/cmdc.201600182): passive gastrointestinal absorption and brain penetration read from where a
 * molecule falls in the (TPSA, WLOGP) plane. Inside the "white" ellipse: high probability of passive GI
 * absorption; inside the "yolk" ellipse: high probability of passive blood-brain-barrier permeation.
 *
 * Descriptors, as SwissADME computes them for the model:
 *   x = TPSA in Å² with polar sulfur and phosphorus included (Ertl et al., J. Med. Chem. 2000, 43, 3714;
 *       SwissADME, Daina et al., Sci. Rep. 2017, 7, 42717: "including polar sulfur and phosphorus atoms").
 *       RDKit's get_descriptors() "tpsa" covers N and O only; tpsaWithSP() adds Ertl's S and P terms
 *       exactly as RDKit's CalcTPSA(includeSandP=True) does.
 *   y = WLOGP, SwissADME's implementation of Wildman & Crippen (J. Chem. Inf. Comput. Sci. 1999, 39, 868);
 *       RDKit's CrippenClogP implements the same atom-type method.
 *
 * Ellipses (see docs/boiled-egg.md for where the numbers come from and how they were checked): centre,
 * full axis lengths and rotation in data units of the (TPSA, WLOGP) plane; the first axis is the one along
 * TPSA before rotation; the angle is in degrees, counter-clockwise positive, so a negative angle tilts the
 * long axis down (lower WLOGP) as TPSA grows.
 */
import { molGraph } from "./graph.js";
import type { RDKitMol } from "./rdkit.js";

interface EggEllipse {
  /** Centre, TPSA (Å²). */
  centerTpsa: number;
  /** Centre, WLOGP. */
  centerWlogp: number;
  /** Full length of the axis lying along TPSA before rotation. */
  axisTpsa: number;
  /** Full length of the axis lying along WLOGP before rotation. */
  axisWlogp: number;
  /** Rotation in degrees, counter-clockwise positive, in data units. */
  angleDeg: number;
}

/** HIA ("white"): passive gastrointestinal absorption. */
const WHITE_ELLIPSE: Readonly<EggEllipse> = Object.freeze({
  centerTpsa: 71.051,
  centerWlogp: 2.292,
  axisTpsa: 142.081,
  axisWlogp: 8.74,
  angleDeg: -1.031325,
});

/** BBB ("yolk"): passive blood-brain-barrier permeation. */
const YOLK_ELLIPSE: Readonly<EggEllipse> = Object.freeze({
  centerTpsa: 38.117,
  centerWlogp: 3.177,
  axisTpsa: 82.061,
  axisWlogp: 5.557,
  angleDeg: -0.171887,
});

const ELLIPSE_SOURCE =
  "Ellipse parameters as published for BOILED-Egg (Daina & Zoete 2016) and carried identically by two independent public " +
  "reimplementations (one states they are the original publication's); checked against the paper's 660-molecule HIA and " +
  "260-molecule BBB data sets (docs/boiled-egg.md).";

/**
 * Normalised squared distance of (tpsa, wlogp) from the ellipse centre in the ellipse's own axes:
 * below 1 inside, 1 on the border, above 1 outside.
 */
function ellipseDistance(e: Readonly<EggEllipse>, tpsa: number, wlogp: number): number {
  const t = (e.angleDeg * Math.PI) / 180;
  const dx = tpsa - e.centerTpsa;
  const dy = wlogp - e.centerWlogp;
  const u = dx * Math.cos(t) + dy * Math.sin(t);
  const v = -dx * Math.sin(t) + dy * Math.cos(t);
  return (u / (e.axisTpsa / 2)) ** 2 + (v / (e.axisWlogp / 2)) ** 2;
}

/**
 * The outline of the white (GI) or yolk (BBB) ellipse as `steps` points in the (TPSA, WLOGP) plane, the first
 * repeated at the end (a closed polygon to draw).
 */
export function eggEllipseOutline(which: "white" | "yolk", steps = 180): Array<{ tpsa: number; wlogp: number }> {
  const e = which === "white" ? WHITE_ELLIPSE : YOLK_ELLIPSE;
  const t = (e.angleDeg * Math.PI) / 180;
  const out: Array<{ tpsa: number; wlogp: number }> = [];
  for (let i = 0; i <= steps; i++) {
    const phi = (2 * Math.PI * (i % steps)) / steps;
    const u = (e.axisTpsa / 2) * Math.cos(phi);
    const v = (e.axisWlogp / 2) * Math.sin(phi);
    out.push({ tpsa: e.centerTpsa + u * Math.cos(t) - v * Math.sin(t), wlogp: e.centerWlogp + u * Math.sin(t) + v * Math.cos(t) });
  }
  return out;
}

export type EggZone = "yolk" | "white" | "grey";

export interface EggResult {
  giAbsorbed: boolean;
  bbbPenetrant: boolean;
  zone: EggZone;
  whiteDistance: number;
  yolkDistance: number;
}

/** Classifies a point; the border counts as inside. GI and BBB are read independently, as SwissADME does. */
export function classifyEgg(tpsa: number, wlogp: number): EggResult {
  const whiteDistance = ellipseDistance(WHITE_ELLIPSE, tpsa, wlogp);
  const yolkDistance = ellipseDistance(YOLK_ELLIPSE, tpsa, wlogp);
  const giAbsorbed = whiteDistance <= 1;
  const bbbPenetrant = yolkDistance <= 1;
  const zone: EggZone = bbbPenetrant ? "yolk" : giAbsorbed ? "white" : "grey";
  return { giAbsorbed, bbbPenetrant, zone, whiteDistance, yolkDistance };
}

// ---- TPSA with polar S and P (Ertl et al. 2000, as RDKit's CalcTPSA(includeSandP=True)) ----

/** What admet_profile and boiled_egg need from one get_json() call. */
export interface PolarGraphInfo {
  /** Sum of Ertl's S and P contributions (0 when the molecule has no S or P). */
  sulfurPhosphorusPsa: number;
  /** Aromatic atoms (RDKit's aromaticity model). */
  aromaticAtoms: number;
}

/**
 * Ertl's contribution of one S or P atom, from its environment: heavy-atom neighbours, attached H, formal
 * charge and the single/double/aromatic bonds to heavy atoms (the atom types of Ertl's Table 1).
 */
function spContribution(z: number, nbrs: number, hs: number, chg: number, single: number, double: number, aromatic: number): number {
  if (chg !== 0) return 0;
  if (z === 15) {
    if (nbrs === 2 && hs === 0 && single === 1 && double === 1) return 34.14; // R-P=X
    if (nbrs === 3 && hs === 0 && single === 3) return 13.59; // PR3
    if (nbrs === 3 && hs === 1 && single === 2 && double === 1) return 23.47; // HP(R)2=X
    if (nbrs === 4 && hs === 0 && single === 3 && double === 1) return 9.81; // P(R)3=X
    return 0;
  }
  // sulfur
  if (nbrs === 1 && hs === 0 && double === 1) return 32.09; // S=X
  if (nbrs === 1 && hs === 1 && single === 1) return 38.8; // R-SH
  if (nbrs === 2 && hs === 0 && single === 2) return 25.3; // R-S-R
  if (nbrs === 2 && hs === 0 && aromatic === 2) return 28.24; // aromatic s
  if (nbrs === 3 && hs === 0 && aromatic === 2 && double === 1) return 21.7; // aromatic s=X
  if (nbrs === 3 && hs === 0 && single === 2 && double === 1) return 19.21; // sulfoxide
  if (nbrs === 4 && hs === 0 && single === 2 && double === 2) return 8.38; // sulfone
  return 0;
}

/** Reads the S/P polar surface and the aromatic atom count from one get_json() call. */
export function polarGraphInfo(mol: RDKitMol): PolarGraphInfo {
  const { atoms, bonds } = molGraph(mol);
  const aromaticAtoms = atoms.filter((a) => a.aromatic).length;

  const z = atoms.map((a) => a.z);
  const interesting = z.some((n) => n === 15 || n === 16);
  if (!interesting) return { sulfurPhosphorusPsa: 0, aromaticAtoms };

  const n = atoms.length;
  const nbrs = new Int32Array(n);
  const hs = Int32Array.from(atoms, (a) => a.hs);
  const single = new Int32Array(n);
  const double = new Int32Array(n);
  const aromatic = new Int32Array(n);
  for (const { begin: i, end: j, bo, aromatic: isAromatic } of bonds) {
    // A bond to an explicit hydrogen atom counts as an attached H, not as a neighbour.
    if (z[i] === 1 || z[j] === 1) {
      if (z[i] === 1) hs[j]!++;
      else nbrs[j]!++;
      if (z[j] === 1) hs[i]!++;
      else nbrs[i]!++;
      continue;
    }
    nbrs[i]!++;
    nbrs[j]!++;
    if (isAromatic) {
      aromatic[i]!++;
      aromatic[j]!++;
      continue;
    }
    const counts = bo === 1 ? single : bo === 2 ? double : undefined;
    if (counts) {
      counts[i]!++;
      counts[j]!++;
    }
  }

  let psa = 0;
  for (let i = 0; i < n; i++) {
    const zi = z[i]!;
    if (zi !== 15 && zi !== 16) continue;
    psa += spContribution(zi, nbrs[i]!, hs[i]!, atoms[i]!.chg, single[i]!, double[i]!, aromatic[i]!);
  }
  return { sulfurPhosphorusPsa: psa, aromaticAtoms };
}

// ---- the boiled_egg payload ----

const EGG_METHOD = "BOILED-Egg (Daina & Zoete 2016)";
const EGG_CITATION =
  "Daina, A.; Zoete, V. A BOILED-Egg To Predict Gastrointestinal Absorption and Brain Penetration of Small Molecules. " +
  "ChemMedChem 2016, 11, 1117-1121, doi:10.1002/cmdc.201600182";

function ellipseJson(e: Readonly<EggEllipse>): Record<string, number> {
  return {
    center_tpsa: e.centerTpsa,
    center_wlogp: e.centerWlogp,
    axis_tpsa: e.axisTpsa,
    axis_wlogp: e.axisWlogp,
    angle_deg: e.angleDeg,
  };
}

export interface BoiledEggInputs {
  /** Crippen logP (WLOGP). */
  logp: number;
  /** TPSA, N and O only. */
  tpsa: number;
  /** TPSA with polar S and P (the model's x axis). */
  tpsaSP: number;
}

export function boiledEggPayload(inputs: BoiledEggInputs): Record<string, unknown> {
  const r = classifyEgg(inputs.tpsaSP, inputs.logp);
  return {
    gi_absorbed: r.giAbsorbed,
    bbb_penetrant: r.bbbPenetrant,
    zone: r.zone,
    logp: Math.round(inputs.logp * 1000) / 1000,
    tpsa: Math.round(inputs.tpsa * 100) / 100,
    tpsa_sp: Math.round(inputs.tpsaSP * 100) / 100,
    method: EGG_METHOD,
    white_distance: Math.round(r.whiteDistance * 1000) / 1000,
    yolk_distance: Math.round(r.yolkDistance * 1000) / 1000,
    thresholds: {
      plane: "x = TPSA with polar S and P (Å², tpsa_sp), y = WLOGP (Wildman-Crippen logP, logp)",
      gi_white: ellipseJson(WHITE_ELLIPSE),
      bbb_yolk: ellipseJson(YOLK_ELLIPSE),
      convention:
        "Full axis lengths in data units; axis_tpsa lies along TPSA before rotation; angle in degrees, counter-clockwise " +
        "positive in the (TPSA, WLOGP) data plane. A point is inside when its normalised distance is at most 1.",
      source: ELLIPSE_SOURCE,
    },
    pgp: "Not modelled: SwissADME colours BOILED-Egg points by a P-gp substrate SVM, which is not published as rules and is not implemented here.",
    citation: EGG_CITATION,
    note: "Passive permeation estimate from two computed descriptors, not a measurement; it ignores transporters, metabolism and ionization.",
  };
}

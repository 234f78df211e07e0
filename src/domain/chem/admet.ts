/**
 * admet_profile: screening estimates from published rule-based models over RDKit descriptors. Nothing
 * here is a measurement or a trained predictor; every value names its method and citation, and values no
 * published rule-based method implemented here can give are null with the reason.
 *
 * Substructure rules (Kazius toxicophores, acidic and basic groups, permanent cations) come from assets/admet-rules.json.
 */
import { readFileSync } from "node:fs";
import { assetPath } from "../assets.js";
import { classifyEgg, polarGraphInfo } from "./boiled_egg.js";
import type { EggResult } from "./boiled_egg.js";
import { hasMatch } from "./match.js";
import { descriptorsOf, round } from "./rdkit.js";
import type { RDKit, RDKitDescriptors, RDKitMol } from "./rdkit.js";
import { compileAll, compiledPerRdkit } from "./rdkit-cache.js";

// ---- published coefficients ----

/** Clark, J. Pharm. Sci. 1999, 88, 815-821: logBB = -0.0148 PSA + 0.152 ClogP + 0.139 (n = 55, r = 0.887). */
const CLARK_LOGBB = Object.freeze({ psa: -0.0148, clogp: 0.152, intercept: 0.139 });

/** Delaney, J. Chem. Inf. Comput. Sci. 2004, 44, 1000-1005: logS = 0.16 - 0.63 clogP - 0.0062 MWT + 0.066 RB - 0.74 AP. */
const DELANEY_ESOL = Object.freeze({ intercept: 0.16, clogp: -0.63, mw: -0.0062, rb: 0.066, ap: -0.74 });

/** Gleeson, J. Med. Chem. 2008, 51, 817-834: ADMET parameters worsen above MW 400 and clogP 4. */
const GLEESON = Object.freeze({ mw: 400, clogp: 4 });

/** SwissADME's log S solubility classes (Daina, Michielin & Zoete, Sci. Rep. 2017, 7, 42717). */
const SOLUBILITY_CLASSES: ReadonlyArray<readonly [number, string]> = [
  [-10, "insoluble"],
  [-6, "poorly soluble"],
  [-4, "moderately soluble"],
  [-2, "soluble"],
  [0, "very soluble"],
];

const CITATIONS = Object.freeze({
  clark:
    "Clark, D. E. Rapid calculation of polar molecular surface area and its application to the prediction of transport phenomena. 2. Prediction of blood-brain barrier penetration. J. Pharm. Sci. 1999, 88, 815-821, doi:10.1021/js980402t",
  delaney:
    "Delaney, J. S. ESOL: Estimating Aqueous Solubility Directly from Molecular Structure. J. Chem. Inf. Comput. Sci. 2004, 44, 1000-1005, doi:10.1021/ci034243x",
  egg: "Daina, A.; Zoete, V. A BOILED-Egg To Predict Gastrointestinal Absorption and Brain Penetration of Small Molecules. ChemMedChem 2016, 11, 1117-1121, doi:10.1002/cmdc.201600182",
  gleeson: "Gleeson, M. P. Generation of a Set of Simple, Interpretable ADMET Rules of Thumb. J. Med. Chem. 2008, 51, 817-834, doi:10.1021/jm701122q",
  kazius:
    "Kazius, J.; McGuire, R.; Bursi, R. Derivation and Validation of Toxicophores for Mutagenicity Prediction. J. Med. Chem. 2005, 48, 312-320, doi:10.1021/jm040835a",
  eccs: "Varma, M. V.; Steyn, S. J.; Allerton, C.; El-Kattan, A. F. Predicting Clearance Mechanism in Drug Discovery: Extended Clearance Classification System (ECCS). Pharm. Res. 2015, 32, 3785-3802, doi:10.1007/s11095-015-1749-4",
  swissadme:
    "Daina, A.; Michielin, O.; Zoete, V. SwissADME: a free web tool to evaluate pharmacokinetics, drug-likeness and medicinal chemistry friendliness of small molecules. Sci. Rep. 2017, 7, 42717, doi:10.1038/srep42717",
  crippen:
    "Wildman, S. A.; Crippen, G. M. Prediction of Physicochemical Parameters by Atomic Contributions. J. Chem. Inf. Comput. Sci. 1999, 39, 868-873 (RDKit CrippenClogP)",
  ertl: "Ertl, P.; Rohde, B.; Selzer, P. Fast Calculation of Molecular Polar Surface Area as a Sum of Fragment-Based Contributions. J. Med. Chem. 2000, 43, 3714-3717 (RDKit TPSA)",
});

const DISCLAIMER =
  "Rule-based screening estimates from published equations and substructure rules applied to computed descriptors " +
  "(Crippen logP, TPSA, MW); they are not measurements and not predictions of a trained model. Use them to triage or " +
  "rank compounds, never as experimental values. Values null here need pKa or an equation that could not be verified; " +
  "the reason is given under methods.";

// ---- rules asset ----

interface NamedSmarts {
  name: string;
  smarts: string;
  label?: string;
}

interface RulesAsset {
  toxicophores: NamedSmarts[];
  acidic_groups: NamedSmarts[];
  basic_groups: NamedSmarts[];
  permanent_cations: NamedSmarts[];
}

function loadRules(): RulesAsset {
  const file = assetPath("admet-rules.json");
  const data = JSON.parse(readFileSync(file, "utf8")) as Partial<RulesAsset>;
  const ok = (v: unknown): v is NamedSmarts[] =>
    Array.isArray(v) && v.every((r) => r && typeof (r as NamedSmarts).name === "string" && typeof (r as NamedSmarts).smarts === "string");
  if (!ok(data.toxicophores) || !ok(data.acidic_groups) || !ok(data.basic_groups) || !ok(data.permanent_cations)) {
    throw new Error(`Malformed ADMET rules asset ${file}`);
  }
  return data as RulesAsset;
}

const ADMET_RULES: Readonly<RulesAsset> = loadRules();

interface CompiledRule {
  rule: NamedSmarts;
  query: RDKitMol;
}
interface CompiledRules {
  toxicophores: CompiledRule[];
  acidic: CompiledRule[];
  basic: CompiledRule[];
  cations: CompiledRule[];
}

// Compiled once per RDKit module (i.e. per worker thread) and never deleted.
const rulesFor = compiledPerRdkit((rdkit): CompiledRules =>
  compileAll(rdkit, "ADMET", (c) => {
    const compile = (rule: NamedSmarts): CompiledRule => ({ rule, query: c.query(rule.smarts, rule.name) });
    return {
      toxicophores: ADMET_RULES.toxicophores.map(compile),
      acidic: ADMET_RULES.acidic_groups.map(compile),
      basic: ADMET_RULES.basic_groups.map(compile),
      cations: ADMET_RULES.permanent_cations.map(compile),
    };
  }),
);

// ---- inputs ----

export const IONIZATION_CLASSES = ["acid", "base", "zwitterion", "permanent_cation", "neutral"] as const;
type IonizationClass = (typeof IONIZATION_CLASSES)[number];

/** Everything the models read, so they can be checked against native RDKit values. */
interface AdmetInputs {
  mw: number;
  logp: number;
  /** TPSA, N and O only (RDKit default). */
  tpsa: number;
  /** TPSA with polar S and P (SwissADME's TPSA, used for BOILED-Egg). */
  tpsaSP: number;
  hbd: number;
  hba: number;
  rotatableBonds: number;
  heavyAtoms: number;
  aromaticAtoms: number;
  toxicophores: string[];
  acidicGroups: string[];
  basicGroups: string[];
  /** Permanently charged cations (quaternary ammonium...): charged at any pH, but no base. */
  permanentCations: string[];
}

/** Reads the inputs of `mol` with one get_descriptors() and one get_json() call plus the rule SMARTS. */
function admetInputs(rdkit: RDKit, mol: RDKitMol, descriptors: RDKitDescriptors = descriptorsOf(mol)): AdmetInputs {
  const rules = rulesFor(rdkit);
  const graph = polarGraphInfo(mol);
  const hits = (list: CompiledRule[]): string[] => list.filter((r) => hasMatch(mol, r.query)).map((r) => r.rule.name);
  return {
    mw: descriptors.amw,
    logp: descriptors.CrippenClogP,
    tpsa: descriptors.tpsa,
    tpsaSP: descriptors.tpsa + graph.sulfurPhosphorusPsa,
    hbd: descriptors.NumHBD,
    hba: descriptors.NumHBA,
    rotatableBonds: descriptors.NumRotatableBonds,
    heavyAtoms: descriptors.NumHeavyAtoms,
    aromaticAtoms: graph.aromaticAtoms,
    toxicophores: hits(rules.toxicophores),
    acidicGroups: hits(rules.acidic),
    basicGroups: hits(rules.basic),
    permanentCations: hits(rules.cations),
  };
}

// ---- models ----

function clarkLogBB(tpsa: number, logp: number): number {
  return CLARK_LOGBB.psa * tpsa + CLARK_LOGBB.clogp * logp + CLARK_LOGBB.intercept;
}

/** Delaney's ESOL with AP = aromatic atoms / heavy atoms (0 for a molecule without heavy atoms). */
export function esolLogS(logp: number, mw: number, rotatableBonds: number, aromaticAtoms: number, heavyAtoms: number): number {
  const ap = heavyAtoms > 0 ? aromaticAtoms / heavyAtoms : 0;
  return DELANEY_ESOL.intercept + DELANEY_ESOL.clogp * logp + DELANEY_ESOL.mw * mw + DELANEY_ESOL.rb * rotatableBonds + DELANEY_ESOL.ap * ap;
}

function solubilityClass(logS: number): string {
  for (const [upper, label] of SOLUBILITY_CLASSES) if (logS < upper) return label;
  return "highly soluble";
}

/**
 * The class from the groups found. A permanent cation (quaternary ammonium...) is positive at every pH: with an
 * acidic group it makes a zwitterion (a betaine), alone it is its own class, not a base (it has no proton to lose).
 */
function ionizationClass(acidic: readonly string[], basic: readonly string[], cations: readonly string[] = []): IonizationClass {
  if (acidic.length > 0 && (basic.length > 0 || cations.length > 0)) return "zwitterion";
  if (acidic.length > 0) return "acid";
  if (basic.length > 0) return "base";
  if (cations.length > 0) return "permanent_cation";
  return "neutral";
}

interface RiskRule {
  name: string;
  met: boolean;
}

/** Gleeson 2008 trends: hERG inhibition rises with MW and clogP and is highest for bases (and zwitterions). */
function hergRules(inputs: Pick<AdmetInputs, "mw" | "logp">, ion: IonizationClass): RiskRule[] {
  return [
    { name: "basic_center (base or zwitterion)", met: ion === "base" || ion === "zwitterion" },
    { name: `clogp_gt_${GLEESON.clogp}`, met: inputs.logp > GLEESON.clogp },
    { name: `mw_gt_${GLEESON.mw}`, met: inputs.mw > GLEESON.mw },
  ];
}

/** Gleeson 2008 trends: CYP3A4 inhibition rises with MW and clogP. */
function cyp3a4Rules(inputs: Pick<AdmetInputs, "mw" | "logp">): RiskRule[] {
  return [
    { name: `clogp_gt_${GLEESON.clogp}`, met: inputs.logp > GLEESON.clogp },
    { name: `mw_gt_${GLEESON.mw}`, met: inputs.mw > GLEESON.mw },
  ];
}

function riskScore(rules: readonly RiskRule[]): number {
  return round(rules.filter((r) => r.met).length / rules.length, 2);
}

/**
 * ECCS class (Varma et al. 2015) from ionization, MW (400) and permeability; the permeability call
 * (high/low) is the BOILED-Egg passive-absorption call here, not a measured Papp.
 */
function eccsClass(ion: IonizationClass, mw: number, highPermeability: boolean): { eccs: string; mechanism: string } {
  const acidic = ion === "acid" || ion === "zwitterion";
  if (highPermeability) {
    if (!acidic) return { eccs: "2", mechanism: "metabolism" };
    return mw <= 400 ? { eccs: "1A", mechanism: "metabolism" } : { eccs: "1B", mechanism: "hepatic uptake (transporter-mediated)" };
  }
  if (!acidic) return { eccs: "4", mechanism: "renal" };
  return mw <= 400 ? { eccs: "3A", mechanism: "renal" } : { eccs: "3B", mechanism: "hepatic uptake or renal" };
}

// ---- the payload ----

interface MethodNote {
  method: string;
  citation: string;
  note?: string;
}

export interface AdmetPayload {
  bbb_score: number;
  bbb_passes: boolean;
  caco2_logp: null;
  herg_risk: number;
  cyp3a4_risk: number;
  pka_acid: null;
  pka_base: null;
  esol_logs: number;
  esol_class: string;
  logd_74: null;
  mw: number;
  logp: number;
  tpsa: number;
  hbd: number;
  hba: number;
  rotatable_bonds: number;
  ames_risk: number;
  ppb_percent: null;
  clearance_class: string;
  gi_absorbed: boolean;
  ionization_class: IonizationClass;
  alerts: {
    ames: string[];
    herg: string[];
    cyp3a4: string[];
    acidic_groups: string[];
    basic_groups: string[];
    permanent_cations: string[];
  };
  methods: Record<string, MethodNote>;
  disclaimer: string;
}

const NO_PKA =
  "No published rule-based pKa method is implemented, so no pKa is given; acidic and basic groups are only detected " + "(see alerts and ionization_class).";

function admetPayload(inputs: AdmetInputs): AdmetPayload {
  const ion = ionizationClass(inputs.acidicGroups, inputs.basicGroups, inputs.permanentCations);
  const egg: EggResult = classifyEgg(inputs.tpsaSP, inputs.logp);
  const logS = esolLogS(inputs.logp, inputs.mw, inputs.rotatableBonds, inputs.aromaticAtoms, inputs.heavyAtoms);
  const herg = hergRules(inputs, ion);
  const cyp = cyp3a4Rules(inputs);
  const eccs = eccsClass(ion, inputs.mw, egg.giAbsorbed);
  const gleesonNote = (key: string): string =>
    `Score = fraction of the criteria met (those met are listed in alerts.${key}). Thresholds are Gleeson's favourable region ` +
    `(MW < ${GLEESON.mw}, clogP < ${GLEESON.clogp}) with Crippen logP for clogP; ionization from functional groups, not pKa.`;
  return {
    bbb_score: round(clarkLogBB(inputs.tpsa, inputs.logp), 3),
    bbb_passes: egg.bbbPenetrant,
    caco2_logp: null,
    herg_risk: riskScore(herg),
    cyp3a4_risk: riskScore(cyp),
    pka_acid: null,
    pka_base: null,
    esol_logs: round(logS, 3),
    esol_class: solubilityClass(logS),
    logd_74: null,
    mw: round(inputs.mw, 2),
    logp: round(inputs.logp, 3),
    tpsa: round(inputs.tpsa, 2),
    hbd: inputs.hbd,
    hba: inputs.hba,
    rotatable_bonds: inputs.rotatableBonds,
    ames_risk: inputs.toxicophores.length > 0 ? 1 : 0,
    ppb_percent: null,
    clearance_class: `ECCS ${eccs.eccs}: ${eccs.mechanism}`,
    gi_absorbed: egg.giAbsorbed,
    ionization_class: ion,
    alerts: {
      ames: inputs.toxicophores,
      herg: herg.filter((r) => r.met).map((r) => r.name),
      cyp3a4: cyp.filter((r) => r.met).map((r) => r.name),
      acidic_groups: inputs.acidicGroups,
      basic_groups: inputs.basicGroups,
      permanent_cations: inputs.permanentCations,
    },
    methods: {
      bbb_score: {
        method: "Clark logBB = -0.0148 * PSA + 0.152 * ClogP + 0.139, with RDKit TPSA (N, O) for PSA and Crippen logP for ClogP",
        citation: CITATIONS.clark,
        note: "Clark fitted 3D PSA and Daylight ClogP on 55 compounds; the substitutions are approximations. logBB > 0.3: readily crosses; < -1: poorly.",
      },
      bbb_passes: { method: "Inside the BOILED-Egg yolk (BBB ellipse in the TPSA/WLOGP plane)", citation: CITATIONS.egg },
      gi_absorbed: { method: "Inside the BOILED-Egg white (passive GI absorption ellipse)", citation: CITATIONS.egg },
      caco2_logp: {
        method: "not estimated",
        citation: "none",
        note:
          "No published TPSA-based Caco-2 equation could be verified against its source. The reference's formula " +
          "(-0.1416 TPSA + 0.6585 logP - 0.5046, attributed to Palm et al. 1997) could not be traced to that paper and gives " +
          "log Papp near -9 for aspirin, outside the measured Caco-2 range; gi_absorbed (BOILED-Egg) is the published passive-absorption call.",
      },
      herg_risk: { method: "Gleeson rules of thumb: basic centre, clogP > 4, MW > 400", citation: CITATIONS.gleeson, note: gleesonNote("herg") },
      cyp3a4_risk: { method: "Gleeson rules of thumb: clogP > 4, MW > 400", citation: CITATIONS.gleeson, note: gleesonNote("cyp3a4") },
      esol_logs: {
        method:
          "ESOL logS = 0.16 - 0.63 cLogP - 0.0062 MW + 0.066 RB - 0.74 AP (mol/L), with Crippen logP, RDKit strict rotatable bonds, AP = aromatic atoms / heavy atoms",
        citation: CITATIONS.delaney,
        note: "Delaney used Daylight clogP; esol_class uses SwissADME's log S scale (" + CITATIONS.swissadme + ").",
      },
      logd_74: {
        method: "not estimated",
        citation: "none",
        note: "logD7.4 = logP - log10(1 + 10^(7.4 - pKa)) for an acid (10^(pKa - 7.4) for a base) needs pKa. " + NO_PKA,
      },
      pka_acid: { method: "not estimated", citation: "none", note: NO_PKA },
      pka_base: { method: "not estimated", citation: "none", note: NO_PKA },
      ames_risk: {
        method:
          "1 when any of the eight general mutagenicity toxicophores, or the specific toxicophores alkyl nitrite and carboxylic acid halide, matches (alerts.ames), else 0",
        citation: CITATIONS.kazius,
        note: "SMARTS written from the toxicophore definitions without the paper's exception rules, so slightly more molecules are flagged.",
      },
      ppb_percent: {
        method: "not estimated",
        citation: "none",
        note: "No published rule-based equation for % plasma protein binding is implemented. Gleeson 2008: binding rises with clogP and is highest for acids.",
      },
      clearance_class: {
        method:
          "ECCS class from ionization class, MW (400) and permeability (BOILED-Egg GI call as the permeability proxy); gives the likely predominant clearance mechanism, not a rate",
        citation: CITATIONS.eccs,
      },
      ionization_class: {
        method:
          "acid/base/zwitterion/permanent_cation/neutral from acidic and basic functional groups and permanently charged cations (assets/admet-rules.json), not from pKa; " +
          "a permanent cation with an acidic group is a zwitterion, alone it is permanent_cation (charged at any pH, no base: not a basic centre for hERG, a non-acid for ECCS)",
        citation: CITATIONS.gleeson,
      },
      logp: { method: "Wildman-Crippen logP (RDKit CrippenClogP)", citation: CITATIONS.crippen },
      tpsa: { method: "Topological polar surface area, N and O contributions (RDKit TPSA)", citation: CITATIONS.ertl },
    },
    disclaimer: DISCLAIMER,
  };
}

/** The admet_profile payload of `mol`. */
export function computeAdmet(rdkit: RDKit, mol: RDKitMol): AdmetPayload {
  return admetPayload(admetInputs(rdkit, mol));
}

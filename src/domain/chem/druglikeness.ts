/**
 * Published drug-likeness rule sets beside Lipinski's, evaluated on RDKit descriptors (MinimalLib's
 * get_descriptors, the same numbers calc_properties shows). Each threshold is written in as its paper states
 * it; where the paper used a descriptor RDKit does not have, the RDKit descriptor used instead is named:
 *
 * - mw: average molecular weight (Descriptors.MolWt); logp: Wildman-Crippen logP (Crippen.MolLogP, the WLOGP
 *   SwissADME also uses; Ghose's ALOGP, Muegge's XLOGP and Congreve's ClogP are not in RDKit); mr: Crippen
 *   molar refractivity (Crippen.MolMR); tpsa: topological polar surface area, N and O (rdMolDescriptors.CalcTPSA);
 *   rotb: rotatable bonds, strict definition (CalcNumRotatableBonds); hbd/hba in Lipinski's set: NH+OH and N+O
 *   counts (NHOHCount, NOCount) as in the paper and lipinski_check; hbd/hba elsewhere: RDKit's SMARTS-based
 *   CalcNumHBD / CalcNumHBA; atoms: all atoms including hydrogens (CalcNumAtoms); rings: SSSR ring count
 *   (CalcNumRings); carbons: carbon atoms; heteroatoms: atoms other than C and H (CalcNumHeteroatoms).
 *
 * Every comparison uses the unrounded value; the values shown are rounded (mw, tpsa 2 dp; logp, mr 3 dp).
 */
import type { RDKitDescriptors } from "./rdkit.js";
import { round } from "./rdkit.js";

type DrugProperty = "mw" | "logp" | "mr" | "tpsa" | "rotb" | "hbd" | "hba" | "atoms" | "rings" | "carbons" | "heteroatoms";

/** One criterion: the property, its bounds as published (inclusive unless marked exclusive). */
export interface Criterion {
  property: DrugProperty;
  min?: number;
  max?: number;
  /** The bound is strict (< or >), as the paper writes it. */
  exclusive?: boolean;
}

export interface RuleSet {
  key: DrugRuleKey;
  citation: string;
  criteria: readonly Criterion[];
  /** Lipinski's donors and acceptors are the paper's NH+OH and N+O counts. */
  lipinskiCounts?: boolean;
  /**
   * Criteria a molecule may fail and still pass the rule set (default 0). Lipinski's rule of five flags poor
   * absorption "when two parameters are out of range" (Lipinski et al. 1997), so one violation still passes, as
   * lipinski_check's passes_ro5 and SwissADME's Lipinski filter have it.
   */
  maxViolations?: number;
}

export const DRUG_RULE_KEYS = ["lipinski", "veber", "egan", "ghose", "muegge", "ro3"] as const;
type DrugRuleKey = (typeof DRUG_RULE_KEYS)[number];

/** The rule sets, thresholds as published. */
export const DRUG_RULES: readonly RuleSet[] = [
  {
    // Lipinski, Lombardo, Dominy, Feeney, Adv. Drug Deliv. Rev. 1997, 23, 3-25 (the values of lipinski_check).
    key: "lipinski",
    citation: "Lipinski et al., Adv. Drug Deliv. Rev. 1997, 23, 3-25",
    lipinskiCounts: true,
    maxViolations: 1,
    criteria: [
      { property: "mw", max: 500 },
      { property: "logp", max: 5 },
      { property: "hbd", max: 5 },
      { property: "hba", max: 10 },
    ],
  },
  {
    // Veber et al., J. Med. Chem. 2002, 45, 2615-2623: 10 or fewer rotatable bonds and PSA <= 140 A^2
    // (the alternative of 12 or fewer H-bond donors plus acceptors is not used).
    key: "veber",
    citation: "Veber et al., J. Med. Chem. 2002, 45, 2615-2623",
    criteria: [
      { property: "rotb", max: 10 },
      { property: "tpsa", max: 140 },
    ],
  },
  {
    // Egan, Merz, Baldwin, J. Med. Chem. 2000, 43, 3867-3877: the absorption ellipse's bounds on the axes,
    // PSA <= 131.6 and AlogP98 <= 5.88 (as SwissADME applies them, with WLOGP).
    key: "egan",
    citation: "Egan et al., J. Med. Chem. 2000, 43, 3867-3877",
    criteria: [
      { property: "logp", max: 5.88 },
      { property: "tpsa", max: 131.6 },
    ],
  },
  {
    // Ghose, Viswanadhan, Wendoloski, J. Comb. Chem. 1999, 1, 55-68: the qualifying range of the known drugs,
    // 160 <= MW <= 480, -0.4 <= ALOGP <= 5.6, 40 <= MR <= 130, 20 <= total atoms <= 70.
    key: "ghose",
    citation: "Ghose et al., J. Comb. Chem. 1999, 1, 55-68",
    criteria: [
      { property: "mw", min: 160, max: 480 },
      { property: "logp", min: -0.4, max: 5.6 },
      { property: "mr", min: 40, max: 130 },
      { property: "atoms", min: 20, max: 70 },
    ],
  },
  {
    // Muegge, Heald, Brittelli, J. Med. Chem. 2001, 44, 1841-1846: 200 <= MW <= 600, -2 <= XLOGP <= 5,
    // TPSA <= 150, rings <= 7, carbons > 4, heteroatoms > 1, rotatable bonds <= 15, HBA <= 10, HBD <= 5.
    key: "muegge",
    citation: "Muegge et al., J. Med. Chem. 2001, 44, 1841-1846",
    criteria: [
      { property: "mw", min: 200, max: 600 },
      { property: "logp", min: -2, max: 5 },
      { property: "tpsa", max: 150 },
      { property: "rings", max: 7 },
      { property: "carbons", min: 4, exclusive: true },
      { property: "heteroatoms", min: 1, exclusive: true },
      { property: "rotb", max: 15 },
      { property: "hba", max: 10 },
      { property: "hbd", max: 5 },
    ],
  },
  {
    // Congreve, Carr, Murray, Jhoti, Drug Discov. Today 2003, 8, 876-877: MW < 300, HBD <= 3, HBA <= 3,
    // ClogP <= 3, and as suggested there rotatable bonds <= 3 and PSA <= 60.
    key: "ro3",
    citation: "Congreve et al., Drug Discov. Today 2003, 8, 876-877",
    criteria: [
      { property: "mw", max: 300, exclusive: true },
      { property: "logp", max: 3 },
      { property: "hbd", max: 3 },
      { property: "hba", max: 3 },
      { property: "rotb", max: 3 },
      { property: "tpsa", max: 60 },
    ],
  },
];

/** A criterion as text, e.g. "<= 500", "160..480", "< 300", "> 4". */
export function thresholdText(c: Criterion): string {
  if (c.min !== undefined && c.max !== undefined) return `${c.min}..${c.max}`;
  if (c.max !== undefined) return `${c.exclusive ? "<" : "<="} ${c.max}`;
  return `${c.exclusive ? ">" : ">="} ${c.min}`;
}

export function meets(c: Criterion, value: number): boolean {
  if (c.min !== undefined && (c.exclusive ? !(value > c.min) : !(value >= c.min))) return false;
  if (c.max !== undefined && (c.exclusive ? !(value < c.max) : !(value <= c.max))) return false;
  return true;
}

/** The unrounded inputs of the rules. */
export interface DrugValues {
  mw: number;
  logp: number;
  mr: number;
  tpsa: number;
  rotb: number;
  hbd: number;
  hba: number;
  lipinskiHbd: number;
  lipinskiHba: number;
  atoms: number;
  rings: number;
  carbons: number;
  heteroatoms: number;
}

export function drugValues(d: RDKitDescriptors, carbons: number): DrugValues {
  return {
    mw: d.amw,
    logp: d.CrippenClogP,
    mr: d.CrippenMR ?? Number.NaN,
    tpsa: d.tpsa,
    rotb: d.NumRotatableBonds,
    hbd: d.NumHBD,
    hba: d.NumHBA,
    lipinskiHbd: d.lipinskiHBD,
    lipinskiHba: d.lipinskiHBA,
    atoms: d.NumAtoms,
    rings: d.NumRings,
    carbons,
    heteroatoms: d.NumHeteroatoms,
  };
}

const DIGITS: Partial<Record<DrugProperty, number>> = { mw: 2, tpsa: 2, logp: 3, mr: 3 };

interface RuleResult {
  /** At most the rule set's allowed violations (none, but one for Lipinski's rule of five). */
  pass: boolean;
  /** How many criteria are not met. */
  violations: number;
  /** How many the rule set allows (present when not 0: Lipinski's 1). */
  max_violations?: number;
  /** The properties outside their bounds (absent when none). */
  failed?: DrugProperty[];
  values: Partial<Record<DrugProperty, number>>;
  thresholds: Partial<Record<DrugProperty, string>>;
  citation: string;
}

function valueOf(v: DrugValues, rule: RuleSet, p: DrugProperty): number {
  if (rule.lipinskiCounts && p === "hbd") return v.lipinskiHbd;
  if (rule.lipinskiCounts && p === "hba") return v.lipinskiHba;
  return v[p];
}

function evaluateRule(v: DrugValues, rule: RuleSet): RuleResult {
  const values: Partial<Record<DrugProperty, number>> = {};
  const thresholds: Partial<Record<DrugProperty, string>> = {};
  const failed: DrugProperty[] = [];
  for (const c of rule.criteria) {
    const value = valueOf(v, rule, c.property);
    const digits = DIGITS[c.property];
    values[c.property] = digits === undefined ? value : round(value, digits);
    thresholds[c.property] = thresholdText(c);
    if (!meets(c, value)) failed.push(c.property);
  }
  const allowed = rule.maxViolations ?? 0;
  return {
    pass: failed.length <= allowed,
    violations: failed.length,
    ...(allowed > 0 ? { max_violations: allowed } : {}),
    ...(failed.length > 0 ? { failed } : {}),
    values,
    thresholds,
    citation: rule.citation,
  };
}

export interface DruglikenessResult {
  passed: DrugRuleKey[];
  failed: DrugRuleKey[];
  rules: Record<DrugRuleKey, RuleResult>;
}

export function druglikeness(v: DrugValues): DruglikenessResult {
  const rules = {} as Record<DrugRuleKey, RuleResult>;
  for (const rule of DRUG_RULES) rules[rule.key] = evaluateRule(v, rule);
  return {
    passed: DRUG_RULE_KEYS.filter((k) => rules[k].pass),
    failed: DRUG_RULE_KEYS.filter((k) => !rules[k].pass),
    rules,
  };
}

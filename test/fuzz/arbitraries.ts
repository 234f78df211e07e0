/**
 * fast-check arbitraries for the fuzz tests: SMILES and SMARTS (built from a grammar, or mutated from
 * real ones), giant molecules, and tool arguments derived from each tool's own inputSchema, so every tool
 * registered now or later is fuzzed without a list to maintain. Nothing runs on import (node --test loads
 * every file under build/test/).
 *
 * Budgets: FUZZ_SCALE (default 1) multiplies every run count and time limit; FUZZ_SEED replays a failure
 * (fast-check prints the seed and path of any counterexample).
 */
import fc from "fast-check";
import type { JsonSchema } from "../../src/contract/tool.js";

export const FUZZ_SCALE = Math.max(0.1, Number(process.env.FUZZ_SCALE ?? 1) || 1);

/** fast-check parameters: at most `runs` runs; FUZZ_SEED replays a failure. */
export function fuzzParams(runs: number): fc.Parameters<unknown> {
  const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
  return { numRuns: Math.max(1, Math.round(runs * FUZZ_SCALE)), ...(seed === undefined ? {} : { seed }) };
}

/**
 * A time budget for one property: runs after `ms` (times FUZZ_SCALE) pass without checking anything,
 * except once a run has failed, so fast-check can still shrink the counterexample. (fast-check's own
 * interruptAfterTimeLimit fails a property that was interrupted before its first run.)
 */
export function timeBox(ms: number): <T>(check: () => Promise<T>) => Promise<T | undefined> {
  const deadline = Date.now() + ms * FUZZ_SCALE;
  let ran = 0;
  let failed = false;
  return async (check) => {
    if (!failed && ran > 0 && Date.now() > deadline) return undefined;
    ran++;
    try {
      return await check();
    } catch (e) {
      failed = true;
      throw e;
    }
  };
}

// ---------------------------------------------------------------------------------------------------
// SMILES

/** Real molecules to mutate: drugs, salts, stereo, charges, isotopes, aromatic heterocycles, macrocycles. */
export const SMILES_SEEDS = [
  "CC(=O)Oc1ccccc1C(=O)O",
  "CN1C=NC2=C1C(=O)N(C(=O)N2C)C",
  "Cc1ccc(cc1Nc1nccc(n1)c1cccnc1)NC(=O)c1ccc(cc1)CN1CCN(C)CC1",
  "CC1(C)S[C@@H]2[C@H](NC(=O)Cc3ccccc3)C(=O)N2[C@H]1C(=O)O",
  "O=C(O)C[C@@H](O)C(=O)O.[Na+]",
  "F/C=C/F",
  "[13CH3][N+](C)(C)C.[Cl-]",
  "c1ccc2[nH]ccc2c1",
  "C1CC2CCC1C2",
  "O=S(=O)(N)c1ccc(cc1)C(F)(F)F",
  "C[C@H]1CC[C@@H](O1)C#N",
  "c1ccc2c(c1)ccc1ccccc12",
  "OC1C2CC3CC1CC(C2)C3",
  "[Fe+2].[O-]C(=O)C",
  "C1CCCCCCCCCCC1",
  "N#Cc1ccc(cc1)B(O)O",
  "CC(C)(C)OC(=O)N[C@@H](Cc1ccccc1)C(=O)O",
  "s1cccc1-c1ncco1",
  "[2H]C([2H])([2H])O",
  "C=CC(=O)N1CCN(CC1)c1ncnc2[nH]ccc12",
];

const ORGANIC = ["C", "C", "C", "C", "N", "O", "S", "P", "F", "Cl", "Br", "I", "B"];
const AROMATIC = ["c", "c", "c", "n", "o", "s", "p", "b"];
const BRACKET_ELEMENTS = [
  "C",
  "N",
  "O",
  "S",
  "P",
  "H",
  "Na",
  "K",
  "Fe",
  "Cu",
  "Zn",
  "Pt",
  "Si",
  "Se",
  "Te",
  "As",
  "B",
  "Cl",
  "Br",
  "I",
  "Xe",
  "U",
  "c",
  "n",
  "o",
  "s",
  "se",
  "te",
  "as",
  "*",
];
const CHARGES = ["+", "-", "++", "--", "+2", "-3", "+1", "-1"];
const SMILES_BONDS = ["", "", "", "", "", "=", "#", "/", "\\", ":", "-", "$"];

/**
 * Reads choices from a list of integers, so fast-check can shrink the list. Once it runs out every
 * choice is the first option and every chance fails, so a builder always ends.
 */
class Choices {
  private i = 0;
  constructor(private readonly values: readonly number[]) {}
  next(k: number): number {
    return this.i < this.values.length ? this.values[this.i++]! % k : 0;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.next(list.length)]!;
  }
  chance(oneIn: number): boolean {
    return this.i < this.values.length && this.next(oneIn) === 0;
  }
}

class RingBook {
  readonly open: number[] = [];
  private readonly openedAt = new Map<number, number>();
  private nextNumber = 1;
  /** Atoms written so far (a ring bond closes only on a later atom than the one that opened it). */
  atom = 0;
  digits(n: number): string {
    return n < 10 ? String(n) : `%${n}`;
  }
  /** Opens a new ring bond or closes an open one. */
  step(c: Choices, bonds: readonly string[]): string {
    const closable = this.open.filter((n) => this.openedAt.get(n)! < this.atom);
    if (closable.length > 0 && c.chance(2)) {
      const n = closable[c.next(closable.length)]!;
      this.open.splice(this.open.indexOf(n), 1);
      return c.pick(bonds) + this.digits(n);
    }
    let n = c.chance(6) ? 10 + c.next(90) : this.nextNumber++;
    while (this.open.includes(n)) n++;
    this.open.push(n);
    this.openedAt.set(n, this.atom);
    return this.digits(n);
  }
}

const PLAIN_ATOMS = ["C", "C", "C", "C", "C", "C", "C", "C", "C", "N", "N", "O", "[C@H]", "[C@@H]"];
const PLAIN_BONDS = ["", "", "", "", "", "", "", "", "", "="];

function smilesAtom(c: Choices, plain: boolean): string {
  if (plain) return c.pick(PLAIN_ATOMS);
  const kind = c.next(10);
  if (kind < 5) return c.pick(ORGANIC);
  if (kind < 7) return c.pick(AROMATIC);
  let s = "[";
  if (c.chance(5)) s += String(1 + c.next(40));
  s += c.pick(BRACKET_ELEMENTS);
  if (c.chance(6)) s += c.chance(2) ? "@" : "@@";
  if (c.chance(3)) s += `H${c.chance(2) ? String(c.next(4)) : ""}`;
  if (c.chance(4)) s += c.pick(CHARGES);
  if (c.chance(10)) s += `:${c.next(100)}`;
  return `${s}]`;
}

function smilesChain(c: Choices, rings: RingBook, depth: number, budget: { atoms: number }, plain: boolean): string {
  const bonds = plain ? PLAIN_BONDS : SMILES_BONDS;
  let s = smilesAtom(c, plain);
  budget.atoms--;
  const length = 1 + c.next(8);
  for (let k = 0; k < length && budget.atoms > 0; k++) {
    while (c.chance(plain ? 6 : 4)) s += rings.step(c, bonds);
    if (depth < 4 && c.chance(4)) s += `(${c.pick(bonds)}${smilesChain(c, rings, depth + 1, budget, plain)})`;
    s += c.pick(bonds) + smilesAtom(c, plain);
    rings.atom++;
    budget.atoms--;
  }
  return s;
}

/**
 * A SMILES from the grammar. Half are "plain" (organic subset, mostly single bonds: usually valid, so
 * the tools' computations run); the rest use every feature (brackets, charges, isotopes, aromatic atoms,
 * every bond symbol) and are often invalid (valences, aromaticity, open rings), exercising the error paths.
 */
function buildSmiles(values: readonly number[], maxAtoms = 40): string {
  const c = new Choices(values);
  const plain = c.chance(2);
  const fragments = 1 + (c.chance(5) ? c.next(3) : 0);
  const budget = { atoms: maxAtoms };
  const parts: string[] = [];
  for (let f = 0; f < fragments && budget.atoms > 0; f++) {
    const rings = new RingBook();
    let s = smilesChain(c, rings, 0, budget, plain);
    // Close what is open (usually): an unclosed ring is one of the invalid inputs worth sending.
    if (!c.chance(8)) for (const n of rings.open) s += rings.digits(n);
    parts.push(s);
  }
  return parts.join(".");
}

const SMILES_ALPHABET = [..."CNOSPFIBrcnosl()[]=#@+-/\\%0123456789.*:$H"];
/** Characters no SMILES should contain: controls, quotes, non-ASCII, a lone surrogate, a NUL. */
const HOSTILE = ["\u0000", "\t", " ", '"', "'", "é", "Å", "😀", "\ud800", "\u200b", "\\u0041", "{", "}", "<", "&"];

type Edit = [op: number, at: number, pick: number, len: number];

/** Applies random edits (insert, delete, replace, duplicate, swap, truncate) to a string. */
export function mutate(seed: string, edits: readonly Edit[], alphabet: readonly string[]): string {
  let s = seed;
  for (const [op, at, pick, len] of edits) {
    const i = s.length === 0 ? 0 : at % (s.length + 1);
    const ch = pick % 5 === 0 ? HOSTILE[pick % HOSTILE.length]! : alphabet[pick % alphabet.length]!;
    switch (op % 7) {
      case 0:
        s = s.slice(0, i) + ch + s.slice(i);
        break;
      case 1:
        s = s.slice(0, i) + s.slice(i + 1 + (len % 4));
        break;
      case 2:
        s = s.slice(0, i) + ch + s.slice(i + 1);
        break;
      case 3:
        s = s.slice(0, i) + s.slice(i, i + 1 + (len % 8)) + s.slice(i);
        break;
      case 4:
        if (i + 1 < s.length) s = s.slice(0, i) + s[i + 1]! + s[i]! + s.slice(i + 2);
        break;
      case 5:
        s = s.slice(0, Math.max(1, i));
        break;
      default:
        s = s.slice(0, i) + seed.slice(0, 1 + (len % 12)) + s.slice(i);
    }
  }
  return s;
}

const edits = fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 4 });

const grammarSmiles = (maxAtoms = 40): fc.Arbitrary<string> =>
  fc.array(fc.nat({ max: 0xffff }), { minLength: 4, maxLength: 200, size: "large" }).map((v) => buildSmiles(v, maxAtoms));
const mutatedSmiles = (): fc.Arbitrary<string> => fc.tuple(fc.constantFrom(...SMILES_SEEDS), edits).map(([s, e]) => mutate(s, e, SMILES_ALPHABET));

/** Random and mutated SMILES, with the real ones now and then; never empty (the schemas say minLength 1). */
export const anySmiles = (maxAtoms = 40): fc.Arbitrary<string> =>
  fc
    .oneof(
      { arbitrary: grammarSmiles(maxAtoms), weight: 5 },
      { arbitrary: mutatedSmiles(), weight: 3 },
      { arbitrary: fc.constantFrom(...SMILES_SEEDS), weight: 2 },
    )
    .map((s) => (s.length === 0 ? "C" : s));

// ---------------------------------------------------------------------------------------------------
// SMARTS

const SMARTS_SEEDS = [
  "[#6]-[#6](=[#8])-[#7]",
  "c1ccccc1",
  "[CX3](=O)[OX2H1]",
  "[$([NX3;H2,H1;!$(NC=O)]),$([NX3;H0;!$(NC=O)])]",
  "[!#1;!#6]",
  "[R2;r6]@[R]",
  "*~*~*",
  "[n;H1]",
  "C(=O)O",
  "[#7;+]",
  "[C;D3](-[F,Cl,Br,I])",
  "[OH]c1ccccc1",
  "[$(C=O),$(S=O)]",
  "[a;!c]",
  "[C@H](N)C(=O)O",
];

const SMARTS_PRIMITIVES = [
  "#6",
  "#7",
  "#8",
  "#1",
  "#16",
  "C",
  "c",
  "N",
  "n",
  "O",
  "a",
  "A",
  "R",
  "R0",
  "R2",
  "r5",
  "r6",
  "X2",
  "X4",
  "D1",
  "D3",
  "H0",
  "H1",
  "h",
  "v3",
  "x2",
  "+",
  "-",
  "+1",
  "-2",
  "@",
  "@@",
  "*",
  "$(C=O)",
  "$(*~[#7])",
];
const SMARTS_LOGIC = ["&", ";", ",", ""];
const SMARTS_BONDS = ["", "", "-", "=", "#", ":", "~", "@", "!@", "!-", "=,#", "-;!@", "/", "\\"];

function smartsAtom(c: Choices, depth: number): string {
  if (c.chance(4)) return c.pick(["*", "C", "c", "N", "O", "n", "[#6]"]);
  const terms = 1 + c.next(3);
  let s = "[";
  for (let t = 0; t < terms; t++) {
    if (t > 0) s += c.pick(SMARTS_LOGIC);
    if (c.chance(4)) s += "!";
    s += depth < 2 && c.chance(12) ? `$(${smartsChain(c, new RingBook(), depth + 1, { atoms: 6 })})` : c.pick(SMARTS_PRIMITIVES);
  }
  return `${s}]`;
}

function smartsChain(c: Choices, rings: RingBook, depth: number, budget: { atoms: number }): string {
  let s = smartsAtom(c, depth);
  budget.atoms--;
  const length = c.next(6);
  for (let k = 0; k < length && budget.atoms > 0; k++) {
    if (c.chance(5)) s += rings.step(c, SMARTS_BONDS);
    if (c.chance(5)) s += `(${c.pick(SMARTS_BONDS)}${smartsChain(c, rings, depth + 1, budget)})`;
    s += c.pick(SMARTS_BONDS) + smartsAtom(c, depth);
    rings.atom++;
    budget.atoms--;
  }
  if (!c.chance(8)) for (const n of rings.open) s += rings.digits(n);
  return s;
}

function buildSmarts(values: readonly number[]): string {
  return smartsChain(new Choices(values), new RingBook(), 0, { atoms: 12 });
}

const SMARTS_ALPHABET = [..."[]#!&;,$()@~=:-+*RrXDHhvxacnosCNOS0123456789"];

export const anySmarts = (): fc.Arbitrary<string> =>
  fc
    .oneof(
      { arbitrary: fc.array(fc.nat({ max: 0xffff }), { minLength: 2, maxLength: 120, size: "large" }).map(buildSmarts), weight: 4 },
      { arbitrary: fc.tuple(fc.constantFrom(...SMARTS_SEEDS), edits).map(([s, e]) => mutate(s, e, SMARTS_ALPHABET)), weight: 4 },
      { arbitrary: fc.constantFrom(...SMARTS_SEEDS), weight: 1 },
    )
    .map((s) => (s.length === 0 ? "*" : s));

// ---------------------------------------------------------------------------------------------------
// Giant molecules

/** Big inputs of every shape that stresses a parser or a graph algorithm, each with its atom count. */
export function giantMolecules(): Array<{ name: string; smiles: string }> {
  const closures = (n: number) => Array.from({ length: n }, (_, i) => `%${10 + (i % 90)}`);
  return [
    { name: "unbranched chain of 600 carbons", smiles: "C".repeat(600) },
    { name: "unbranched chain of 1,000 carbons (past RDKit's linked 64 KiB stack)", smiles: "C".repeat(1_000) },
    { name: "chain of 12,000 carbons (over the atom cap)", smiles: "C".repeat(12_000) },
    { name: "estimated 25,000 atoms (refused before parsing)", smiles: "C".repeat(25_000) },
    { name: "ring of 500 atoms", smiles: `C1${"C".repeat(498)}C1` },
    { name: "ring of 2,000 atoms", smiles: `C1${"C".repeat(1_998)}C1` },
    { name: "3,000 one-atom fragments", smiles: Array(3_000).fill("C").join(".") },
    { name: "10,001 one-atom fragments (over the atom cap)", smiles: Array(10_001).fill("C").join(".") },
    { name: "1,000 sodium chloride pairs", smiles: Array(1_000).fill("[Na+].[Cl-]").join(".") },
    { name: "branches nested 400 deep", smiles: `${"C(".repeat(400)}C${")".repeat(400)}` },
    { name: "branches nested 2,000 deep", smiles: `${"C(".repeat(2_000)}C${")".repeat(2_000)}` },
    { name: "comb of 500 methyl branches", smiles: `C${"C(C)".repeat(500)}` },
    { name: "150 phenyl rings in a row", smiles: `c1ccccc1${"-c1ccccc1".repeat(150)}` },
    {
      name: "80 ring bonds open at once",
      smiles: `${closures(80)
        .map((d) => `C${d}`)
        .join("")}${"C".repeat(10)}${closures(80)
        .reverse()
        .map((d) => `C${d}`)
        .join("")}`,
    },
    { name: "2,000 isotope-labelled bracket atoms", smiles: "[13CH2]".repeat(2_000) },
    { name: "conjugated chain of 200 stereo double bonds", smiles: `F${"/C=C/C".repeat(200)}F` },
    { name: "a 100,000-character SMILES (the schema's maxLength)", smiles: `${"C.".repeat(49_999)}CC` },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Tool arguments from a tool's inputSchema

export interface StringSources {
  smiles: fc.Arbitrary<string>;
  smarts: fc.Arbitrary<string>;
  /** For properties named *json* (a MolJSON text or object). */
  json?: fc.Arbitrary<unknown>;
}

function bounded(n: unknown, fallback: number): number {
  return typeof n === "number" && Number.isFinite(n) ? n : fallback;
}

/** An arbitrary for one property, chosen from its schema and, for strings, its name. */
function valueFor(name: string, schema: JsonSchema, sources: StringSources): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[]));
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) return fc.oneof(...variants.map((v) => valueFor(name, v, sources)));
  const lower = name.toLowerCase();
  switch (schema.type) {
    case "string": {
      if (lower.includes("smarts")) return sources.smarts;
      if (lower.includes("smiles")) return sources.smiles;
      if (lower.includes("json") && sources.json) return sources.json.filter((v) => typeof v === "string");
      const maxLength = Math.min(bounded(schema.maxLength, 24), 24);
      const minLength = Math.min(bounded(schema.minLength, 0), maxLength);
      if (typeof schema.pattern === "string")
        return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= bounded(schema.maxLength, 10_000));
      return fc.string({ minLength, maxLength });
    }
    case "integer": {
      const min = bounded(schema.minimum, 0);
      const max = Math.max(min, Math.min(bounded(schema.maximum, min + 3), min + 3));
      return fc.integer({ min, max });
    }
    case "number": {
      const min = bounded(schema.minimum, 0);
      const max = bounded(schema.maximum, min + 10);
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case "boolean":
      return fc.boolean();
    case "array": {
      const items = (schema.items ?? {}) as JsonSchema;
      const minLength = bounded(schema.minItems, 0);
      const maxLength = Math.max(minLength, Math.min(bounded(schema.maxItems, minLength + 3), minLength + 3));
      const item = valueFor(name, items, sources);
      return schema.uniqueItems ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(item, { minLength, maxLength });
    }
    case "object": {
      if (lower.includes("json") && sources.json) return sources.json.filter((v) => typeof v === "object");
      return argsFor(schema, sources);
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * Objects shaped by an object schema: its required properties always, the others now and then. A
 * dependentRequired group (e.g. tanimoto's smiles1 + smiles2) or a top-level oneOf form is also generated
 * whole, often, since a random subset rarely satisfies it.
 */
export function argsFor(schema: JsonSchema, sources: StringSources): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(properties)) record[name] = valueFor(name, sub, sources);
  const groups = Object.entries((schema.dependentRequired ?? {}) as Record<string, string[]>).map(([k, deps]) => new Set([k, ...deps]));
  // A top-level oneOf of required sets (cluster_molecules' smiles_list or canvas_id, depict's three forms): each
  // form whole and alone, since a random subset of optional keys mostly gives none or two of them.
  for (const form of (Array.isArray(schema.oneOf) ? schema.oneOf : []) as JsonSchema[]) {
    if (Array.isArray(form.required) && form.properties === undefined) groups.push(new Set(form.required as string[]));
  }
  if (groups.length === 0) return fc.record(record, { requiredKeys: required.filter((k) => k in record) });
  const grouped = new Set(groups.flatMap((g) => [...g]));
  // One group whole, without the keys of the others (tanimoto: the pair form or the bulk form).
  // The group alone too: options of one form may be refused in the other (tanimoto's top_k).
  const variants = groups.flatMap((group) =>
    [(k: string) => group.has(k) || !grouped.has(k), (k: string) => group.has(k) || required.includes(k)].map((keep) => {
      const subset = Object.fromEntries(Object.entries(record).filter(([k]) => keep(k)));
      return fc.record(subset, { requiredKeys: [...required, ...group].filter((k) => k in subset) });
    }),
  );
  return fc.oneof(fc.record(record, { requiredKeys: required.filter((k) => k in record) }) as fc.Arbitrary<Record<string, unknown>>, ...variants);
}

/** Arguments a client could send by mistake: wrong types, unknown keys, missing ones, or not an object at all. */
export const wrongArgs = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.record({ smiles: fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }), fc.constant("")) }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    fc.jsonValue({ maxDepth: 2 }),
  );

/**
 * The local check of a structure query before it goes to ChEMBL (whose structure endpoints answer a bad
 * SMILES slowly, sometimes with a 500). With an RDKit parser at hand (the tool runs parse_smiles in the
 * server's chemistry pool), RDKit parses the SMILES; without it, a strict SMILES grammar check runs here on the main
 * thread: atoms and bracket atoms against the periodic table, bonds, branches, ring-closure pairing and
 * dot-separated components (OpenSMILES grammar). The grammar check cannot see valence errors; the answer
 * says which check ran.
 */
import { ToolError } from "../errors.js";

const ELEMENTS = new Set(
  (
    "H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe " +
    "Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr " +
    "Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og"
  ).split(" "),
);
/** Aromatic symbols allowed inside brackets (OpenSMILES). */
const AROMATIC_BRACKET = new Set(["b", "c", "n", "o", "p", "s", "se", "as", "te"]);
const ORGANIC = ["Cl", "Br", "B", "C", "N", "O", "P", "S", "F", "I", "b", "c", "n", "o", "p", "s", "*"];
const BOND = new Set(["-", "=", "#", "$", ":", "/", "\\"]);

export type StructureCheck = "rdkit" | "smiles_grammar";

export interface GrammarIssue {
  position: number;
  message: string;
}

const BRACKET = /^(\d{1,3})?(\*|[A-Z][a-z]?|[a-z]{1,2})(@@|@(?:TH[12]|AL[12]|SP[123]|TB\d{1,2}|OH\d{1,2})?)?(H\d?)?([+-](?:\d{1,2}|[+-]*))?(:\d{1,5})?$/;

function bracketIssue(body: string): string | null {
  const m = BRACKET.exec(body);
  if (!m) return `bracket atom [${body}] is not valid`;
  const symbol = m[2]!;
  if (symbol === "*") return null;
  if (/^[a-z]/.test(symbol)) return AROMATIC_BRACKET.has(symbol) ? null : `unknown aromatic element "${symbol}"`;
  return ELEMENTS.has(symbol) ? null : `unknown element "${symbol}"`;
}

/** The first grammar problem of a SMILES string, or null when it is well formed. */
export function smilesGrammarIssue(smiles: string): GrammarIssue | null {
  const s = smiles;
  if (s.length === 0) return { position: 0, message: "empty SMILES" };
  const open: number[] = [];
  const rings = new Map<string, number>();
  // What the previous token was: start of a component, an atom, a bond, a branch opener, a ring closure.
  let prev: "start" | "atom" | "bond" | "open" | "ring" = "start";
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    const at = i;
    if (c === "[") {
      const end = s.indexOf("]", i);
      if (end < 0) return { position: at, message: "unclosed bracket atom" };
      const issue = bracketIssue(s.slice(i + 1, end));
      if (issue) return { position: at, message: issue };
      prev = "atom";
      i = end + 1;
      continue;
    }
    const organic = ORGANIC.find((sym) => s.startsWith(sym, i));
    if (organic) {
      prev = "atom";
      i += organic.length;
      continue;
    }
    if (BOND.has(c)) {
      if (prev === "start" || prev === "bond") return { position: at, message: `bond "${c}" must follow an atom` };
      prev = "bond";
      i++;
      continue;
    }
    if (c === "(") {
      if (prev !== "atom" && prev !== "ring") return { position: at, message: "a branch must follow an atom" };
      open.push(at);
      prev = "open";
      i++;
      continue;
    }
    if (c === ")") {
      if (open.length === 0) return { position: at, message: "unbalanced ')'" };
      if (prev === "open") return { position: at, message: "empty branch" };
      if (prev === "bond") return { position: at, message: "a branch cannot end with a bond" };
      open.pop();
      prev = "atom";
      i++;
      continue;
    }
    if (/[0-9%]/.test(c)) {
      if (prev !== "atom" && prev !== "ring" && prev !== "bond") return { position: at, message: "a ring closure must follow an atom" };
      let label: string;
      if (c === "%") {
        const m = /^%(\d{2}|\(\d{1,5}\))/.exec(s.slice(i));
        if (!m) return { position: at, message: "ring closure % needs two digits" };
        label = m[1]!.replace(/[()]/g, "");
        i += m[0].length;
      } else {
        label = c;
        i++;
      }
      if (rings.has(label)) rings.delete(label);
      else rings.set(label, at);
      prev = "ring";
      continue;
    }
    if (c === ".") {
      if (prev === "start" || prev === "bond" || prev === "open") return { position: at, message: "'.' must separate two components" };
      if (open.length > 0) return { position: at, message: "'.' inside a branch" };
      prev = "start";
      i++;
      continue;
    }
    return { position: at, message: `unexpected character "${c}"` };
  }
  if (prev === "bond") return { position: s.length, message: "SMILES ends with a bond" };
  if (prev === "start") return { position: s.length, message: "SMILES ends with '.'" };
  if (open.length > 0) return { position: open[open.length - 1]!, message: "unclosed branch '('" };
  const unclosed = [...rings.entries()][0];
  if (unclosed) return { position: unclosed[1], message: `ring bond ${unclosed[0]} is never closed` };
  return null;
}

const LOCAL_HINT = "Fix the SMILES (details say where; parse_smiles shows RDKit's reading of it), then search again.";

/** Parses a SMILES with RDKit (off the main thread); rejects with RDKit's ToolError (INVALID_SMILES, ...). */
export type RdkitParser = (smiles: string) => Promise<unknown>;

/**
 * Checks a structure query before ChEMBL sees it; INVALID_STRUCTURE (with the position) when it cannot
 * be a molecule. Returns which check ran.
 */
export async function checkStructure(smiles: string, parseWithRdkit: RdkitParser | undefined): Promise<StructureCheck> {
  if (parseWithRdkit) {
    try {
      await parseWithRdkit(smiles);
      return "rdkit";
    } catch (e) {
      if (e instanceof ToolError && (e.code === "INVALID_SMILES" || e.code === "MOLECULE_TOO_LARGE")) {
        throw new ToolError("INVALID_STRUCTURE", `The structure query is not a valid molecule: ${e.message}`, { check: "rdkit", ...e.details }, LOCAL_HINT);
      }
      if (!(e instanceof ToolError)) throw e;
      // The pool is busy or timed out: fall back to the grammar check rather than fail the search.
    }
  }
  const issue = smilesGrammarIssue(smiles);
  if (issue) {
    throw new ToolError(
      "INVALID_STRUCTURE",
      `The structure query is not valid SMILES at position ${issue.position}: ${issue.message}`,
      {
        check: "smiles_grammar",
        position: issue.position,
      },
      LOCAL_HINT,
    );
  }
  return "smiles_grammar";
}

import { BRICS_CITATION, BricsCutter, bricsDecompose, cutSmiles, findBricsBonds, type BricsBond } from "../domain/chem/brics.js";
import { descriptorsOf, parseSmiles, round, type RDKit, type RDKitMol } from "../domain/chem/rdkit.js";
import { SA_SCORE_CITATION, computeSaScore } from "../domain/chem/sascore.js";
import { encodeAtomMaps, type AtomMaps } from "../domain/chem/atom-maps.js";
import { ToolError } from "../domain/errors.js";
import { type ChemTool, type JsonSchema } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

/** The reference's atom cap (atoms in the molecule graph, hydrogens written as atoms included). */
export const RETRO_MAX_ATOMS = 500;
const DEFAULT_MAX_DISCONNECTIONS = 50;
const MAX_DISCONNECTIONS = 500;
const BUDGET_MS = 30_000;
/** Our own stop, before the pool's budget, so a long decomposition ends with a clean TIMEOUT. */
const WORK_MS = 25_000;

const NOTE =
  "BRICS single-bond disconnections, easiest first: ranked by the SA score (1 easy - 10 hard) of the harder of the two " +
  "fragments. [n*] marks a cut end; n is the BRICS link-site label, so [1*] (acyl) rejoins [3*], [5*] or [10*] per the " +
  "BRICS rules. Fragment SA scores are computed on the fragment with its dummy atoms, as RDKit's sascorer does. These " +
  "are retrosynthetically motivated cuts from a fixed rule set, not a validated synthesis route.";

const METHOD =
  "RDKit's BRICS (rdkit.Chem.BRICS): FindBRICSBonds with the published environment and rule tables; each bond cut on " +
  "its own as BreakBRICSBonds does (isotope-labelled dummies); full mode = BRICSDecompose with its defaults. SA score: " +
  "Ertl & Schuffenhauer as RDKit's sascorer.";

interface RetrosynthesisArgs {
  smiles: string;
  mode?: "single" | "full";
  max_disconnections?: number;
}

interface Disconnection {
  fragments: [string, string];
  fragment_sa_scores: [number, number];
  max_fragment_sa: number;
  bond: { atoms: [number, number]; labels: [number, number]; environments: [string, string]; order: "single" | "double" };
}

const str = (description: string, maxLength = 100_000): JsonSchema => ({ type: "string", maxLength, description });
const sa = (description: string): JsonSchema => ({ type: "number", minimum: 1, maximum: 10, description });
const pair = (items: JsonSchema, description: string): JsonSchema => ({ type: "array", minItems: 2, maxItems: 2, items, description });

export const retrosynthesisTool: ChemTool<RetrosynthesisArgs> = {
  kind: "chem",
  toolset: "chem",
  name: "retrosynthesis",
  title: "BRICS retrosynthetic disconnections",
  description:
    "BRICS disconnections (Degen 2008, equal to RDKit): each BRICS bond cut, fragments ranked by SA score, easiest first. Rule-based, not a route planner.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles: smilesProperty("The target molecule (one fragment)."),
      mode: {
        type: "string",
        enum: ["single", "full"],
        default: "single",
        description: "full adds the whole decomposition.",
      },
      max_disconnections: {
        type: "integer",
        minimum: 1,
        maximum: MAX_DISCONNECTIONS,
        default: DEFAULT_MAX_DISCONNECTIONS,
        description: "Most disconnections returned.",
      },
    },
    required: ["smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      target: str("RDKit canonical SMILES of the input."),
      target_sa_score: sa("SA score of the whole molecule (3 dp)."),
      disconnections: {
        type: "array",
        maxItems: MAX_DISCONNECTIONS,
        description: "Single-bond BRICS cuts, easiest first: max_fragment_sa ascending, ties in RDKit's FindBRICSBonds order.",
        items: {
          type: "object",
          properties: {
            fragments: pair(
              str("Fragment SMILES with its labelled dummy atom."),
              "The two fragments, canonical SMILES in RDKit's order for the broken molecule.",
            ),
            fragment_sa_scores: pair(
              sa("SA score (3 dp)."),
              "SA score of each fragment (dummy atoms included, as sascorer scores such a fragment), same order.",
            ),
            max_fragment_sa: sa("The larger of the two fragment SA scores (3 dp): the ranking key."),
            bond: {
              type: "object",
              description: "The bond cut.",
              properties: {
                atoms: pair(
                  { type: "integer", minimum: 0, description: "Atom index in the input SMILES order (0-based)." },
                  "The two atoms, in the order of the BRICS rule that matched.",
                ),
                labels: pair(
                  { type: "integer", minimum: 1, maximum: 16, description: "BRICS link label (the dummy's isotope)." },
                  "Dummy label of each atom's side.",
                ),
                environments: pair(str("Environment name, e.g. L1 or L7a.", 8), "BRICS environment of each atom."),
                order: { type: "string", enum: ["single", "double"], description: "Bond order (double only for the L7 C=C rule)." },
              },
              required: ["atoms", "labels", "environments", "order"],
              additionalProperties: false,
            },
          },
          required: ["fragments", "fragment_sa_scores", "max_fragment_sa", "bond"],
          additionalProperties: false,
        },
      },
      total_brics_bonds: { type: "integer", minimum: 0, description: "BRICS bonds in the molecule (one disconnection each)." },
      returned: { type: "integer", minimum: 0, description: "Disconnections in the list." },
      truncated: { type: "boolean", description: "More disconnections exist than were returned (raise max_disconnections to see them)." },
      mode: { type: "string", enum: ["single", "full"], description: "The mode used." },
      decomposition: {
        type: "object",
        description: "Mode 'full' only: the complete BRICS decomposition, RDKit's BRICSDecompose(mol) with its defaults.",
        properties: {
          fragments: {
            type: "array",
            maxItems: 10_000,
            description: "Unique building blocks, sorted by SMILES (a molecule without BRICS bonds is its own single block).",
            items: {
              type: "object",
              properties: {
                smiles: str("Building block SMILES with labelled dummy atoms."),
                sa_score: sa("SA score of the block (3 dp)."),
              },
              required: ["smiles", "sa_score"],
              additionalProperties: false,
            },
          },
          fragment_count: { type: "integer", minimum: 1, description: "Number of unique building blocks." },
          intermediates_visited: { type: "integer", minimum: 1, description: "Distinct fragments BRICSDecompose visited on the way (the input included)." },
        },
        required: ["fragments", "fragment_count", "intermediates_visited"],
        additionalProperties: false,
      },
      note: str("How to read the result.", 2_000),
      method: str("How it was computed.", 2_000),
      citations: { type: "array", maxItems: 4, items: str("A reference.", 1_000), description: "BRICS and SA score publications." },
    },
    required: ["target", "target_sa_score", "disconnections", "total_brics_bonds", "returned", "truncated", "mode", "note", "method", "citations"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE", "DISCONNECTED_MOLECULE"],
  budgetMs: BUDGET_MS,
  list: { maxItems: 50, budgetMs: 50_000 }, // a BRICS search is up to seconds a molecule
  run(args, { rdkit, progress }) {
    const deadline = performance.now() + WORK_MS;
    const mode = args.mode ?? "single";
    const maxDisconnections = args.max_disconnections ?? DEFAULT_MAX_DISCONNECTIONS;
    const mol = parseSmiles(rdkit, args.smiles, { maxAtoms: RETRO_MAX_ATOMS });
    let maps: AtomMaps | undefined;
    try {
      const target = mol.get_smiles();
      if (target.includes(".")) {
        throw new ToolError(
          "DISCONNECTED_MOLECULE",
          "retrosynthesis works on one connected molecule; the SMILES has several parts",
          {
            argument: "smiles",
            fragments: target.split(".").length,
          },
          "Send one connected molecule: use standardize to get the parent (salts and solvents stripped), or send each part on its own.",
        );
      }
      // Atom map numbers (attachment points) ride through the cuts as isotopes; fragments are scored and answered
      // with their map numbers, as native BreakBRICSBonds keeps them.
      maps = encodeAtomMaps(rdkit, mol);
      const work = maps?.mol ?? mol;
      const scores = new SaScores(rdkit, maps?.decodeSmiles);
      const bonds = findBricsBonds(rdkit, work);
      const disconnections = singleCuts(rdkit, work, bonds, scores, deadline, progress);
      const shown = disconnections.slice(0, maxDisconnections);
      const result: Record<string, unknown> = {
        target,
        target_sa_score: round(computeSaScore(rdkit, mol, descriptorsOf(mol)).score, 3),
        disconnections: shown,
        total_brics_bonds: bonds.length,
        returned: shown.length,
        truncated: shown.length < disconnections.length,
        mode,
      };
      if (mode === "full") {
        const d = bricsDecompose(rdkit, work, { deadline, onProgress: (n) => progress(n, undefined, `${n} fragments visited`) });
        result.decomposition = {
          fragments: d.fragments.map((smiles) => ({ smiles, sa_score: scores.of(smiles) })),
          fragment_count: d.fragments.length,
          intermediates_visited: d.nodes,
        };
      }
      return { ...(maps ? maps.decodeAll(result) : result), note: NOTE, method: METHOD, citations: [BRICS_CITATION, SA_SCORE_CITATION] };
    } finally {
      maps?.mol.delete();
      mol.delete();
    }
  },
};

/** SA scores (3 dp) of fragment SMILES, each computed once per call. */
class SaScores {
  private readonly cache = new Map<string, number>();
  constructor(
    private readonly rdkit: RDKit,
    /** Writes a fragment with its atom map numbers back (maps ride as isotopes, which would count in the score). */
    private readonly decode: (smiles: string) => string = (s) => s,
  ) {}

  of(smiles: string): number {
    let v = this.cache.get(smiles);
    if (v === undefined) {
      const m = parseSmiles(this.rdkit, this.decode(smiles), { argName: "fragment" });
      try {
        v = round(computeSaScore(this.rdkit, m, descriptorsOf(m)).score, 3);
      } finally {
        m.delete();
      }
      this.cache.set(smiles, v);
    }
    return v;
  }
}

/** Every BRICS bond cut on its own, sorted by max_fragment_sa (3 dp) ascending, ties in bond order. */
function singleCuts(
  rdkit: RDKit,
  mol: RDKitMol,
  bonds: BricsBond[],
  scores: SaScores,
  deadline: number,
  progress: (p: number, total?: number, message?: string) => void,
): Disconnection[] {
  if (bonds.length === 0) return [];
  const cutter = new BricsCutter(mol);
  const out: Disconnection[] = [];
  bonds.forEach((bond, i) => {
    if (performance.now() > deadline) {
      throw new ToolError(
        "TIMEOUT",
        "The BRICS disconnections did not finish within the time budget",
        { bonds_done: i, total_brics_bonds: bonds.length },
        "Send a smaller molecule.",
      );
    }
    const parts = cutSmiles(rdkit, cutter, bond).split(".");
    if (parts.length !== 2) throw new Error(`A BRICS cut gave ${parts.length} parts`);
    const fragments: [string, string] = [parts[0]!, parts[1]!];
    const fragmentSa: [number, number] = [scores.of(fragments[0]), scores.of(fragments[1])];
    out.push({
      fragments,
      fragment_sa_scores: fragmentSa,
      max_fragment_sa: Math.max(...fragmentSa),
      bond: { atoms: bond.atoms, labels: bond.labels, environments: bond.environments, order: bond.bond === "=" ? "double" : "single" },
    });
    if ((i + 1) % 10 === 0) progress(i + 1, bonds.length, `${i + 1} of ${bonds.length} bonds cut`);
  });
  // Array.prototype.sort is stable: equal keys keep FindBRICSBonds order.
  return out.sort((a, b) => a.max_fragment_sa - b.max_fragment_sa);
}

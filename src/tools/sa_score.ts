import { molGraph } from "../domain/chem/graph.js";
import { descriptorsOf, round } from "../domain/chem/rdkit.js";
import { SA_SCORE_CITATION, SA_SCORE_METHOD, computeSaScore } from "../domain/chem/sascore.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL } from "./common.js";
import { MOLECULE_NOTES_PROPERTIES, SMILES_PARENT_INPUT, withInputMolecule, type SmilesParentArgs } from "./molecule-input.js";

/** Scores below this count as easy to make (Ertl & Schuffenhauer: most drug-like molecules score 2-5). */
const EASY_BELOW = 6;
const NOTE = "1 = easiest, 10 = hardest; < 6 = synthesizable, > 6 = challenging";

const num = (description: string) => ({ type: "number", description });
const count = (description: string) => ({ type: "integer", minimum: 0, description });

export const saScoreTool: ChemTool<SmilesParentArgs> = {
  kind: "chem",
  toolset: "chem",
  name: "sa_score",
  title: "Synthetic accessibility score",
  description:
    "Synthetic accessibility, equal to RDKit's sascorer (Ertl 2009): 1 easy to 10 hard, most drugs 2-5; with the terms behind it. Use it to triage proposed molecules.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: SMILES_PARENT_INPUT,
  outputSchema: {
    type: "object",
    properties: {
      sa_score: { type: "number", minimum: 1, maximum: 10, description: "SA score, 1 (easy) to 10 (hard), 3 dp." },
      easy_to_synthesize: { type: "boolean", description: "sa_score < 6." },
      fragment_score: num("Mean fragment contribution over the molecule's ECFP4 environments (higher = more common fragments), 4 dp."),
      complexity_penalty: num("Sum of the five penalties below, subtracted from the raw score, 4 dp."),
      penalties: {
        type: "object",
        description: "Parts of the complexity penalty, 4 dp each.",
        properties: {
          size: num("n^1.005 - n for n atoms."),
          stereo: num("log10(stereocentres + 1)."),
          spiro: num("log10(spiro atoms + 1)."),
          bridgehead: num("log10(bridgehead atoms + 1)."),
          macrocycle: num("log10(2) if any ring has more than 8 atoms, else 0."),
        },
        required: ["size", "stereo", "spiro", "bridgehead", "macrocycle"],
        additionalProperties: false,
      },
      symmetry_correction: num("0.5 ln(atoms / distinct environments) when positive, added to the raw score (4 dp)."),
      raw_score: num("fragment_score - complexity_penalty + symmetry_correction, before scaling to 1-10 (4 dp)."),
      counts: {
        type: "object",
        description: "The counts behind the terms.",
        properties: {
          atoms: count("Atoms in the molecule graph."),
          fragments: count("ECFP4 environments, with multiplicity."),
          distinct_fragments: count("Distinct environments."),
          unknown_fragments: count("Environments missing from the table (each contributes -4)."),
          stereocenters: count("Tetrahedral stereocentres, assigned or not."),
          spiro_atoms: count("Spiro atoms."),
          bridgehead_atoms: count("Bridgehead atoms."),
          macrocycles: count("Rings of more than 8 atoms."),
        },
        required: ["atoms", "fragments", "distinct_fragments", "unknown_fragments", "stereocenters", "spiro_atoms", "bridgehead_atoms", "macrocycles"],
        additionalProperties: false,
      },
      note: { type: "string", description: "How to read the score." },
      method: { type: "string", description: "How it was computed." },
      citation: { type: "string", description: "The publication." },
      ...MOLECULE_NOTES_PROPERTIES,
    },
    required: ["sa_score", "easy_to_synthesize", "fragment_score", "complexity_penalty", "penalties", "symmetry_correction", "note", "method", "citation"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 15_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles, parent }, { rdkit }) {
    return withInputMolecule(rdkit, smiles, parent, (mol) => {
      const r = computeSaScore(rdkit, mol, descriptorsOf(mol), molGraph(mol));
      const t = r.terms;
      return {
        sa_score: round(r.score, 3),
        easy_to_synthesize: r.score < EASY_BELOW,
        fragment_score: round(r.fragmentScore, 4),
        complexity_penalty: round(r.complexityPenalty, 4),
        penalties: {
          size: round(r.penalties.size, 4),
          stereo: round(r.penalties.stereo, 4),
          spiro: round(r.penalties.spiro, 4),
          bridgehead: round(r.penalties.bridgehead, 4),
          macrocycle: round(r.penalties.macrocycle, 4),
        },
        symmetry_correction: round(r.symmetryCorrection, 4),
        raw_score: round(r.rawScore, 4),
        counts: {
          atoms: t.atoms,
          fragments: t.fragments,
          distinct_fragments: t.distinctFragments,
          unknown_fragments: t.unknownFragments,
          stereocenters: t.stereoCenters,
          spiro_atoms: t.spiroAtoms,
          bridgehead_atoms: t.bridgeheadAtoms,
          macrocycles: t.macrocycles,
        },
        note: NOTE,
        method: SA_SCORE_METHOD,
        citation: SA_SCORE_CITATION,
      };
    });
  },
};

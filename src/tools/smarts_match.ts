import { ToolError } from "../domain/errors.js";
import { withMol, withQuery, type RDKitMol } from "../domain/chem/rdkit.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, SMILES_MAX_LENGTH, smilesProperty } from "./common.js";

const SMARTS_DEFAULT_MAX_MATCHES = 1000;
const SMARTS_MAX_MATCHES = 10_000;
/**
 * At most this many atom indices are listed in atom_maps (the counts stay exact). An answer carries its
 * JSON twice (text block and structuredContent) under a 1 MiB response limit; 50,000 indices of up to five
 * digits stay below 350 KB, and every map of a query of up to five atoms fits at the maximum match count.
 */
export const SMARTS_MAX_REPORTED_INDICES = 50_000;

/**
 * Limits on RDKit's recursive matcher. Measured on RDKit's linked 64 KiB stack: recursive SMARTS nested
 * about 220 levels deep, or a query of about 1,100 atoms matched along a path, exhausted it (a trap that
 * cost the worker). The workers now give RDKit 8 MiB (engine-stack.ts), so the caps leave a margin of
 * over a hundred; they stay because patterns an agent writes are far below both and matching cost grows
 * fast with nesting.
 */
export const SMARTS_MAX_RECURSION_DEPTH = 50;
export const SMARTS_MAX_QUERY_ATOMS = 500;

/** Deepest nesting of recursive SMARTS, $( ... ), in `smarts`. */
export function recursionDepth(smarts: string): number {
  const stack: boolean[] = [];
  let depth = 0;
  let max = 0;
  for (let i = 0; i < smarts.length; i++) {
    const c = smarts[i];
    if (c === "(") {
      const recursive = smarts[i - 1] === "$";
      stack.push(recursive);
      if (recursive) max = Math.max(max, ++depth);
    } else if (c === ")") {
      if (stack.pop() === true) depth--;
    }
  }
  return max;
}

/** RDKit's GetSubstructMatches with explicit parameters; MinimalLib answers "{}" when nothing matches. */
function matchesWith(mol: RDKitMol, query: RDKitMol, params: { maxMatches: number; uniquify: boolean; useChirality: boolean }): number[][] {
  const parsed = JSON.parse(mol.get_substruct_matches(query, JSON.stringify(params))) as unknown;
  if (!Array.isArray(parsed)) return [];
  return parsed.map((m) => (m as { atoms: number[] }).atoms);
}

interface SmartsMatchArgs {
  smarts: string;
  smiles: string;
  max_matches?: number;
  uniquify?: boolean;
  use_chirality?: boolean;
}

export interface SmartsMatchResult {
  matches: boolean;
  match_count: number;
  atom_maps: number[][];
  truncated: boolean;
  atom_maps_complete: boolean;
  query_atom_count: number;
  max_matches: number;
}

export const smartsMatchTool: ChemTool<SmartsMatchArgs, SmartsMatchResult> = {
  kind: "chem",
  toolset: "chem",
  name: "smarts_match",
  title: "SMARTS substructure search",
  description:
    "Find a SMARTS pattern in a molecule: matched, match count and each match's atom indices (in pattern order). Use it to test for or locate a group.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smarts: {
        type: "string",
        minLength: 1,
        maxLength: SMILES_MAX_LENGTH,
        description: "SMARTS, e.g. [CX3](=O)[OX2H1] (carboxylic acid).",
      },
      smiles: smilesProperty("The molecule."),
      max_matches: {
        type: "integer",
        minimum: 1,
        maximum: SMARTS_MAX_MATCHES,
        default: SMARTS_DEFAULT_MAX_MATCHES,
        description: "Stop after this many matches.",
      },
      uniquify: {
        type: "boolean",
        default: true,
        description: "Count matches on the same atoms once.",
      },
      use_chirality: {
        type: "boolean",
        default: false,
        description: "Stereo in the pattern must match.",
      },
    },
    required: ["smarts", "smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      matches: { type: "boolean", description: "The pattern occurs at least once." },
      match_count: { type: "integer", minimum: 0, description: "Number of matches found (at most max_matches)." },
      atom_maps: {
        type: "array",
        items: { type: "array", items: { type: "integer", minimum: 0 } },
        description: "For each match, the molecule's atom indices in pattern-atom order.",
      },
      truncated: { type: "boolean", description: "match_count reached max_matches: more matches may exist." },
      atom_maps_complete: {
        type: "boolean",
        description: `False when atom_maps lists only the first matches, to keep the answer under ${SMARTS_MAX_REPORTED_INDICES} atom indices.`,
      },
      query_atom_count: { type: "integer", minimum: 0, description: "Atoms in the SMARTS pattern." },
      max_matches: { type: "integer", minimum: 1, description: "The match cap used." },
    },
    required: ["matches", "match_count", "atom_maps", "truncated", "atom_maps_complete", "query_atom_count", "max_matches"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMARTS", "INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  // RDKit's matcher cannot be interrupted; a pathological pattern is stopped by the pool at this budget (TIMEOUT).
  budgetMs: 15_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run(args, { rdkit }) {
    const maxMatches = args.max_matches ?? SMARTS_DEFAULT_MAX_MATCHES;
    const uniquify = args.uniquify ?? true;
    const useChirality = args.use_chirality ?? false;
    // The SMARTS is parsed first, so a bad pattern is reported even when the SMILES is bad too.
    const depth = recursionDepth(args.smarts);
    if (depth > SMARTS_MAX_RECURSION_DEPTH) {
      throw new ToolError("INVALID_SMARTS", `Recursive SMARTS nested ${depth} levels deep; at most ${SMARTS_MAX_RECURSION_DEPTH} levels are supported`, {
        argument: "smarts",
        recursion_depth: depth,
        max_recursion_depth: SMARTS_MAX_RECURSION_DEPTH,
      });
    }
    return withQuery(rdkit, args.smarts, (query) => {
      const queryAtoms = query.get_num_atoms();
      if (queryAtoms > SMARTS_MAX_QUERY_ATOMS) {
        throw new ToolError("MOLECULE_TOO_LARGE", `The SMARTS pattern has ${queryAtoms} atoms; this tool accepts at most ${SMARTS_MAX_QUERY_ATOMS}`, {
          argument: "smarts",
          atom_count: queryAtoms,
          max_atoms: SMARTS_MAX_QUERY_ATOMS,
        });
      }
      return withMol(rdkit, args.smiles, (mol): SmartsMatchResult => {
        const maps = matchesWith(mol, query, { maxMatches, uniquify, useChirality });
        const listed: number[][] = [];
        let indices = 0;
        for (const m of maps) {
          if (indices + m.length > SMARTS_MAX_REPORTED_INDICES) break;
          listed.push(m);
          indices += m.length;
        }
        return {
          matches: maps.length > 0,
          match_count: maps.length,
          atom_maps: listed,
          truncated: maps.length >= maxMatches,
          atom_maps_complete: listed.length === maps.length,
          query_atom_count: queryAtoms,
          max_matches: maxMatches,
        };
      });
    });
  },
};

import { findMcs, parseAll, type AtomCompare, type BondCompare } from "../domain/chem/mcs.js";
import { parseSmiles } from "../domain/chem/rdkit.js";
import type { ChemTool, JsonSchema } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import { CANVAS_SET_DEPENDENCIES, CANVAS_SET_HEADER_SCHEMA, canvasSetHeader, canvasSetProperties, openCanvasSet, type CanvasSetArgs } from "./canvas-set.js";
import { MAX_STRING_BYTES } from "../contract/limits.js";
import { splitSdf } from "../domain/chem/input-format.js";
import { ToolError } from "../domain/errors.js";

/**
 * Per-molecule cap (heavy atoms). RDKit's FMCS timeout bounds only its search: the set-up before it
 * (per-molecule match tables, ring data) and the wind-down after it are not covered. Measured on this
 * WASM build with timeout 1 s: 50 peptides of 200 atoms end after 1.1-2.7 s, 20 of 320 atoms after 3.5 s,
 * 50 of 470 atoms after 40 s and two of 1,090 atoms after 19 s. At 200 atoms the overrun stays near 2 s,
 * well inside the 10 s between the longest timeout (30 s) and the tool's budget (40 s). 200 is also the
 * reference's cap, and it covers drugs, natural products and peptides of about 25 residues.
 */
export const MCS_MAX_ATOMS = 200;
const MCS_MAX_MOLECULES = 50;
const MCS_MAX_TIMEOUT_S = 30;
const DEFAULT_TIMEOUT_S = 5;

interface FindMcsArgs extends CanvasSetArgs {
  smiles_list?: string[];
  sdf?: string;
  ring_matches_ring_only?: boolean;
  complete_rings_only?: boolean;
  atom_compare?: AtomCompare;
  bond_compare?: BondCompare;
  timeout_s?: number;
}

/** The molblocks of an sdf argument: 2 to MCS_MAX_MOLECULES records, each with its M  END line. */
function sdfMolblocks(sdf: string): string[] {
  const records = splitSdf(sdf);
  if (records.length < 2 || records.length > MCS_MAX_MOLECULES) {
    throw new ToolError("INVALID_ARGUMENTS", `Invalid arguments: sdf holds ${records.length} records; find_mcs takes 2 to ${MCS_MAX_MOLECULES}`, {
      path: "/sdf",
      records: records.length,
    });
  }
  return records.map((r, i) => {
    if (r.molblock === undefined)
      throw new ToolError("INVALID_SMILES", `Invalid SDF record ${i + 1}: ${r.problem ?? "no molblock"}`, { argument: `sdf record ${i + 1}` });
    return r.molblock;
  });
}

export function createFindMcsTool(canvases: () => CanvasManager = getCanvasManager): ChemTool<FindMcsArgs> {
  const tool: ChemTool<FindMcsArgs> = {
    kind: "chem",
    toolset: "chem",
    name: "find_mcs",
    title: "Maximum common substructure",
    description: "Maximum common substructure of 2 to 50 molecules (RDKit FMCS) as SMARTS and SMILES, with atom and bond counts.",
    annotations: READ_ONLY_LOCAL,
    inputSchema: {
      type: "object",
      properties: {
        smiles_list: {
          type: "array",
          minItems: 2,
          maxItems: MCS_MAX_MOLECULES,
          items: smilesProperty("A molecule."),
          description: "The molecules; the SMILES answer is read on the first.",
        },
        sdf: {
          type: "string",
          minLength: 1,
          maxLength: MAX_STRING_BYTES,
          description: "Instead of smiles_list: SDF text.",
        },
        ring_matches_ring_only: {
          type: "boolean",
          default: true,
          description: "Ring atoms match only ring atoms.",
        },
        complete_rings_only: {
          type: "boolean",
          default: true,
          description: "Rings whole or not at all.",
        },
        atom_compare: {
          type: "string",
          enum: ["elements", "any", "isotopes"],
          default: "elements",
          description: "How atoms match.",
        },
        bond_compare: {
          type: "string",
          enum: ["order", "any", "order_exact"],
          default: "order",
          description: "How bonds match.",
        },
        timeout_s: {
          type: "integer",
          minimum: 1,
          maximum: MCS_MAX_TIMEOUT_S,
          default: DEFAULT_TIMEOUT_S,
          description: "Time limit; then the best so far.",
        },
        ...canvasSetProperties(),
      },
      oneOf: [{ required: ["smiles_list"] }, { required: ["sdf"] }, { required: ["canvas_id"] }],
      dependentRequired: CANVAS_SET_DEPENDENCIES,
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        mcs: {
          type: ["string", "null"],
          description:
            "Canonical SMILES of the common substructure as it occurs in the first molecule (cut bonds become hydrogens; no stereo); null when nothing is in common.",
        },
        mcs_smarts: { type: "string", description: "RDKit's SMARTS of the MCS (empty when nothing is in common); it matches every input molecule." },
        atom_count: { type: "integer", minimum: 0, description: "Atoms in the MCS." },
        bond_count: { type: "integer", minimum: 0, description: "Bonds in the MCS." },
        timed_out: { type: "boolean", description: "The search stopped at timeout_s; the MCS may not be the maximum." },
        molecule_count: { type: "integer", minimum: 2, description: "Number of molecules compared." },
        note: {
          type: "string",
          description: "Why mcs is null although atoms are in common, what a timeout means, or that a partial ring was trimmed (complete_rings_only).",
        },
        options: {
          type: "object",
          description: "The options used.",
          properties: {
            ring_matches_ring_only: { type: "boolean" },
            complete_rings_only: { type: "boolean" },
            atom_compare: { type: "string" },
            bond_compare: { type: "string" },
            timeout_s: { type: "integer" },
          },
          required: ["ring_matches_ring_only", "complete_rings_only", "atom_compare", "bond_compare", "timeout_s"],
          additionalProperties: false,
        },
      },
      required: ["mcs", "mcs_smarts", "atom_count", "bond_count", "timed_out", "molecule_count", "options"],
      additionalProperties: false,
    },
    errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE", "CANVAS_DISABLED", "CANVAS_NOT_FOUND"],
    mainForm: {
      applies: (args) => args.canvas_id !== undefined,
      outputSchema: { type: "object" },
      async run(args, ctx) {
        const chem = ctx.chem;
        if (!chem) throw new Error("find_mcs' canvas form needs the chemistry pool");
        const set = await openCanvasSet(canvases(), args, ctx, MCS_MAX_MOLECULES, "find_mcs");
        const { canvas_id: _c, table: _t, smiles_column: _s, where: _w, ...options } = args;
        try {
          return { ...canvasSetHeader(set), ...(await chem.run(tool, { ...options, smiles_list: set.runnable.map((r) => r.smiles) })) };
        } catch (e) {
          // The list form names an entry by its index: name the row instead.
          const at = e instanceof ToolError && typeof e.details.argument === "string" ? /^smiles_list\[(\d+)\]$/.exec(e.details.argument) : null;
          if (!at || !(e instanceof ToolError)) throw e;
          const row = set.runnable[Number(at[1])]!.row;
          throw new ToolError(
            e.code,
            `Row with _row ${row}: ${e.message}`,
            { ...e.details, argument: `${set.table} _row ${row}` },
            "Leave that row out with where (e.g. _row <> " + row + ").",
          );
        }
      },
    },
    // Longer than the longest RDKit timeout plus its measured overrun, so RDKit's own timeout answers first.
    budgetMs: 40_000,
    run(args, { rdkit }) {
      const options = {
        ringMatchesRingOnly: args.ring_matches_ring_only ?? true,
        completeRingsOnly: args.complete_rings_only ?? true,
        atomCompare: args.atom_compare ?? "elements",
        bondCompare: args.bond_compare ?? "order",
        timeoutS: args.timeout_s ?? DEFAULT_TIMEOUT_S,
      };
      const mols =
        args.sdf !== undefined
          ? parseAll((molblock, i) => parseSmiles(rdkit, molblock, { maxAtoms: MCS_MAX_ATOMS, argName: `sdf record ${i + 1}` }), sdfMolblocks(args.sdf))
          : parseAll((smiles, i) => parseSmiles(rdkit, smiles, { maxAtoms: MCS_MAX_ATOMS, argName: `smiles_list[${i}]` }), args.smiles_list ?? []);
      try {
        const r = findMcs(rdkit, mols, options);
        const notes: string[] = [];
        if (r.timedOut)
          notes.push(
            `The search stopped at its ${options.timeoutS} s timeout: this is the largest common substructure found so far, not necessarily the maximum.`,
          );
        if (r.trimmedFrom !== undefined)
          notes.push(
            `RDKit's FMCS answered ${r.trimmedFrom.atoms} atoms with part of a ring; the partial ring was trimmed so that every ring bond of the MCS lies on a ring of the MCS (complete_rings_only).`,
          );
        if (r.smiles === null && r.atomCount > 0) notes.push(`No SMILES: ${r.smilesNote ?? "the substructure could not be written as SMILES"}.`);
        return {
          mcs: r.smiles,
          mcs_smarts: r.smarts,
          atom_count: r.atomCount,
          bond_count: r.bondCount,
          timed_out: r.timedOut,
          molecule_count: mols.length,
          ...(notes.length > 0 ? { note: notes.join(" ") } : {}),
          options: {
            ring_matches_ring_only: options.ringMatchesRingOnly,
            complete_rings_only: options.completeRingsOnly,
            atom_compare: options.atomCompare,
            bond_compare: options.bondCompare,
            timeout_s: options.timeoutS,
          },
        };
      } finally {
        for (const m of mols) m.delete();
      }
    },
  };
  tool.mainForm!.outputSchema = canvasOutput(tool.outputSchema);
  return tool;
}

/** The canvas form's answer: the list form's, after the rows it was read from. */
function canvasOutput(list: JsonSchema): JsonSchema {
  const properties = (list.properties ?? {}) as Record<string, JsonSchema>;
  return {
    type: "object",
    description: "The canvas form: the MCS of the rows read (where), as for a list.",
    properties: { ...CANVAS_SET_HEADER_SCHEMA, ...properties },
    required: ["canvas_id", "table", "smiles_column", "rows_read", ...((list.required as string[] | undefined) ?? [])],
    additionalProperties: false,
  };
}

export const findMcsTool = createFindMcsTool();

import { cutsOf, fragmentMol, pairMolecules, type Cut } from "../domain/chem/mmpa.js";
import { parseSmiles } from "../domain/chem/rdkit.js";
import { SALT_WARNINGS_PROPERTY, comparisonParent, saltStandardisedWarning } from "./molecule-input.js";
import type { RDKit } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import type { ChemTool, JsonSchema, ProgressReporter } from "../contract/tool.js";
import { smilesProperty } from "./common.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import type { CellValue, ColumnSpec } from "../domain/canvas/tables.js";
import {
  CANVAS_SET_DEPENDENCIES,
  CANVAS_SET_HEADER_SCHEMA,
  canvasSetHeader,
  canvasSetProperties,
  intoProperty,
  openCanvasSet,
  readNumbers,
  stepProgress,
  rowRefColumn,
  writeDerivedTable,
  type CanvasSetArgs,
  CANVAS_WRITE_ANNOTATIONS,
  sampleRows,
} from "./canvas-set.js";

/**
 * Molecules per call. Measured on this WASM build (2 shared cores, under load): single cuts of 1,000 drug-sized
 * molecules (the ChEMBL series of RDKit's Contrib/FreeWilson, about 30 heavy atoms) take 38 s, 1,000 NCI
 * molecules 12 s; fragmentation (get_mmpa_frags and writing its pieces) is most of it. So 500 single-cut
 * molecules fit the 40 s budget with room. With up to 3 cuts, 300 of those molecules took 86 s, so 100 (about 29 s).
 */
const MMP_MAX_MOLECULES = 500;
export const MMP_MAX_MULTI_CUT = 100;
const MMP_MAX_ATOMS = 100;
const MMP_MAX_PAIRS = 10_000;
const DEFAULT_MAX_PAIRS = 1_000;
/** Hussain & Rea's default bound on a change (RDKit Contrib/mmpa indexing.py, --maxsize 10 heavy atoms). */
const DEFAULT_MAX_VARIABLE_ATOMS = 10;
const MAX_VARIABLE_ATOMS = 50;
/** Transformations summarised at most (the most frequent first). */
const MMP_MAX_SUMMARY = 500;

interface Args extends CanvasSetArgs {
  smiles_list?: string[];
  value_column?: string;
  into?: string;
  max_cuts?: number;
  max_pairs?: number;
  values?: Array<number | null>;
  max_variable_atoms?: number;
}

interface Summary {
  transformation: string;
  count: number;
  mean: number;
  sd?: number;
}

function tidy(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Transformations shown in a canvas-form answer. */
const CANVAS_TOP_TRANSFORMATIONS = 5;

const CANVAS_OUTPUT: JsonSchema = {
  type: "object",
  description: "The canvas form: every pair written as a row of a new table (into), a few shown.",
  properties: {
    ...CANVAS_SET_HEADER_SCHEMA,
    into: { type: "string", description: "The table holding the pairs (from_row/to_row are the source rows' _row keys)." },
    total_pairs: { type: "integer", minimum: 0 },
    pairs_written: { type: "integer", minimum: 0, description: "Rows of into (total_pairs, or max_pairs when fewer)." },
    sample: { type: "array", items: { type: "object" }, description: "The first pairs, as into holds them." },
    transformations: { type: "array", items: { type: "object" }, description: "With value_column: the most frequent transformations (count, mean delta, sd)." },
    transformations_total: { type: "integer", minimum: 0 },
    invalid_rows: { type: "integer", minimum: 0, description: "Rows whose SMILES could not be read (left out)." },
    warnings: SALT_WARNINGS_PROPERTY,
  },
  required: ["canvas_id", "table", "smiles_column", "rows_read", "into", "total_pairs", "pairs_written", "sample"],
  additionalProperties: false,
};

export function createMatchedPairsTool(canvases: () => CanvasManager = getCanvasManager): ChemTool<Args> {
  const tool: ChemTool<Args> = {
    kind: "chem",
    toolset: "medchem",
    name: "matched_pairs",
    title: "Matched molecular pairs",
    description:
      "Matched molecular pairs (Hussain-Rea on RDKit MMPA): pairs differing by one local change, with the transformation; with values, deltas and their statistics. A salt pairs as its parent.",
    annotations: CANVAS_WRITE_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        smiles_list: {
          type: "array",
          minItems: 2,
          maxItems: MMP_MAX_MOLECULES,
          items: smilesProperty("A molecule."),
          examples: [["c1ccccc1Cl", "c1ccccc1F", "c1ccccc1", "CCOc1ccccc1F"]],
          description: "The set; pairs name molecules by index.",
        },
        max_cuts: {
          type: "integer",
          minimum: 1,
          maximum: 3,
          default: 1,
          description: "1 substituents; 2-3 also linkers and cores (fewer molecules).",
        },
        max_pairs: {
          type: "integer",
          minimum: 1,
          maximum: MMP_MAX_PAIRS,
          default: DEFAULT_MAX_PAIRS,
          description: "Most pairs listed.",
        },
        max_variable_atoms: {
          type: "integer",
          minimum: 0,
          maximum: MAX_VARIABLE_ATOMS,
          default: DEFAULT_MAX_VARIABLE_ATOMS,
          description: "Largest change, in heavy atoms.",
        },
        values: {
          type: "array",
          minItems: 2,
          maxItems: MMP_MAX_MOLECULES,
          items: { type: ["number", "null"], description: "Or null." },
          description: "One per molecule (e.g. pchembl), for deltas.",
        },
        ...canvasSetProperties(),
        value_column: { type: "string", minLength: 1, maxLength: 63, description: "For deltas." },
        into: intoProperty(),
      },
      oneOf: [{ required: ["smiles_list"] }, { required: ["canvas_id"] }],
      dependentRequired: { ...CANVAS_SET_DEPENDENCIES, value_column: ["canvas_id"], into: ["canvas_id"] },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        pairs: {
          type: "array",
          description: "The matched pairs, by from then to index.",
          items: {
            type: "object",
            properties: {
              from: { type: "integer", minimum: 0, description: "Index of the molecule the transformation starts from." },
              to: { type: "integer", minimum: 0, description: "Index of the molecule it gives." },
              constant: { type: "string", description: "The shared constant part as SMILES, attachment points [*:n]." },
              transformation: { type: "string", description: "Reaction SMILES: variable part of from >> variable part of to." },
              cuts: { type: "integer", minimum: 1, maximum: 3, description: "Bonds cut (present when max_cuts > 1)." },
              delta: { type: "number", description: "value(to) - value(from) (present when values are given for both)." },
            },
            required: ["from", "to", "constant", "transformation"],
            additionalProperties: false,
          },
        },
        total_pairs: { type: "integer", minimum: 0, description: "Pairs found in all (more than listed when truncated)." },
        truncated: { type: "boolean", description: "Present and true when more than max_pairs pairs were found." },
        transformations: {
          type: "array",
          description: `With values: per transformation over all pairs with both values, count, mean delta and sample sd (count > 1); most frequent first, at most ${MMP_MAX_SUMMARY}.`,
          items: {
            type: "object",
            properties: {
              transformation: { type: "string" },
              count: { type: "integer", minimum: 1 },
              mean: { type: "number" },
              sd: { type: "number" },
            },
            required: ["transformation", "count", "mean"],
            additionalProperties: false,
          },
        },
        transformations_total: {
          type: "integer",
          minimum: 0,
          description: "With values: distinct transformations with a delta (more than listed past the cap).",
        },
        invalid: {
          type: "array",
          description: "Entries that could not be read (present only when some could not).",
          items: {
            type: "object",
            properties: { index: { type: "integer", minimum: 0 }, code: { type: "string" }, message: { type: "string" } },
            required: ["index", "code", "message"],
            additionalProperties: false,
          },
        },
        warnings: SALT_WARNINGS_PROPERTY,
      },
      required: ["pairs", "total_pairs"],
      additionalProperties: false,
    },
    errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE", "CANVAS_DISABLED", "CANVAS_NOT_FOUND"],
    budgetMs: 40_000,
    mainForm: {
      applies: (args) => args.canvas_id !== undefined,
      outputSchema: CANVAS_OUTPUT,
      async run(args, ctx) {
        const chem = ctx.chem;
        if (!chem) throw new Error("matched_pairs' canvas form needs the chemistry pool");
        const maxCuts = args.max_cuts ?? 1;
        const set = await openCanvasSet(canvases(), args, ctx, maxCuts > 1 ? MMP_MAX_MULTI_CUT : MMP_MAX_MOLECULES, "matched_pairs");
        const values = args.value_column !== undefined ? await readNumbers(set, args.value_column, "/value_column", ctx.signal) : undefined;
        const progress = stepProgress(ctx);
        const result = await chem.run(
          tool,
          {
            smiles_list: set.runnable.map((r) => r.smiles),
            max_cuts: maxCuts,
            max_pairs: args.max_pairs ?? MMP_MAX_PAIRS,
            ...(args.max_variable_atoms !== undefined ? { max_variable_atoms: args.max_variable_atoms } : {}),
            ...(values ? { values: set.runnable.map((r) => values.get(r.row) ?? null) } : {}),
          },
          { onProgress: progress.onProgress },
        );
        const pairs = result.pairs as Array<{ from: number; to: number; constant: string; transformation: string; cuts?: number; delta?: number }>;
        const columns: ColumnSpec[] = [
          rowRefColumn("from_row", "The molecule the transformation starts from"),
          rowRefColumn("to_row", "The molecule it gives"),
          { name: "from_smiles", type: "VARCHAR", description: "The from molecule's SMILES as the table holds it." },
          { name: "to_smiles", type: "VARCHAR", description: "The to molecule's SMILES as the table holds it." },
          { name: "constant", type: "VARCHAR", description: "The shared constant part, attachment points [*:n]." },
          { name: "transformation", type: "VARCHAR", description: "Reaction SMILES: variable part of from >> variable part of to." },
          ...(maxCuts > 1 ? [{ name: "cuts", type: "INTEGER", description: "Bonds cut." } as ColumnSpec] : []),
          ...(values ? [{ name: "delta", type: "DOUBLE", description: `${args.value_column}(to) - ${args.value_column}(from).` } as ColumnSpec] : []),
        ];
        const cells: CellValue[][] = pairs.map((p) => [
          set.runnable[p.from]!.row,
          set.runnable[p.to]!.row,
          set.runnable[p.from]!.smiles,
          set.runnable[p.to]!.smiles,
          p.constant,
          p.transformation,
          ...(maxCuts > 1 ? [p.cuts ?? null] : []),
          ...(values ? [p.delta ?? null] : []),
        ]);
        const into = await writeDerivedTable(canvases(), set, {
          tool: "matched_pairs",
          suffix: "pairs",
          ...(args.into !== undefined ? { into: args.into } : {}),
          columns,
          rows: cells,
          provenance: { max_cuts: maxCuts, ...(args.value_column !== undefined ? { value_column: args.value_column } : {}) },
          signal: ctx.signal,
        });
        progress.done(`${cells.length} pairs written to ${into}`);
        const answer: Record<string, unknown> = {
          ...canvasSetHeader(set),
          into,
          total_pairs: result.total_pairs,
          pairs_written: cells.length,
          sample: sampleRows(columns, cells),
        };
        if (Array.isArray(result.transformations)) {
          answer.transformations = result.transformations.slice(0, CANVAS_TOP_TRANSFORMATIONS);
          answer.transformations_total = result.transformations_total;
        }
        if (Array.isArray(result.invalid)) answer.invalid_rows = result.invalid.length;
        if (Array.isArray(result.warnings)) answer.warnings = result.warnings;
        return answer;
      },
    },
    run(args, { rdkit, progress }) {
      return runMatchedPairs(rdkit, args, progress);
    },
  };
  return tool;
}

export const matchedPairsTool = createMatchedPairsTool();

/** The matched pairs as the tool answers them (exported for tests, which pass an RDKit instance). */
export function runMatchedPairs(rdkit: RDKit, args: Args, progress: ProgressReporter = () => {}): Record<string, unknown> {
  if (!args.smiles_list) throw new ToolError("INVALID_ARGUMENTS", "Give smiles_list (or canvas_id + table)", { path: "/smiles_list" });
  const list = args.smiles_list;
  const maxCuts = args.max_cuts ?? 1;
  const maxPairs = args.max_pairs ?? DEFAULT_MAX_PAIRS;
  const values = args.values;
  if (maxCuts > 1 && list.length > MMP_MAX_MULTI_CUT) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `Invalid arguments: max_cuts ${maxCuts} takes at most ${MMP_MAX_MULTI_CUT} molecules; smiles_list holds ${list.length}`,
      { path: "/smiles_list", molecules: list.length, max_molecules: MMP_MAX_MULTI_CUT, max_cuts: maxCuts },
      `Send at most ${MMP_MAX_MULTI_CUT} molecules with max_cuts 2 or 3 (e.g. one series), or use max_cuts 1 for up to ${MMP_MAX_MOLECULES}.`,
    );
  }
  if (values !== undefined && values.length !== list.length) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `Invalid arguments: values holds ${values.length} numbers for ${list.length} molecules`,
      { path: "/values", values: values.length, molecules: list.length },
      "Send one value per molecule of smiles_list, in the same order (null where unknown).",
    );
  }
  const cache = new Map<string, string | undefined>();
  const sizes = new Map<string, number>();
  const canonical: Array<string | undefined> = [];
  const cuts: Cut[][] = [];
  const invalid: Array<{ index: number; code: string; message: string }> = [];
  const standardised: Array<{ argument: string; parent_smiles: string }> = [];
  list.forEach((smiles, index) => {
    // Fragmentation is most of the time (seconds for hundreds of molecules): say how far it is.
    if (index > 0 && index % 25 === 0) progress(index, list.length, `${index} of ${list.length} molecules fragmented`);
    let mol;
    try {
      mol = parseSmiles(rdkit, smiles, { maxAtoms: MMP_MAX_ATOMS, argName: `smiles_list[${index}]` });
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      invalid.push({ index, code: err.code, message: err.message });
      canonical.push(undefined);
      cuts.push([]);
      return;
    }
    try {
      // A salt pairs as its parent (named in a SALT_STANDARDISED warning); its counter-ion would keep it from every pair.
      const parent = comparisonParent(rdkit, smiles, mol);
      if (parent !== undefined) {
        mol.delete();
        mol = parseSmiles(rdkit, parent, { maxAtoms: MMP_MAX_ATOMS, argName: `smiles_list[${index}]` });
        standardised.push({ argument: `smiles_list[${index}]`, parent_smiles: parent });
      }
      canonical.push(mol.get_smiles());
      cuts.push(fragmentMol(mol, maxCuts).flatMap((f) => cutsOf(rdkit, f, cache, sizes)));
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      invalid.push({ index, code: err.code, message: err.message });
      canonical.push(undefined);
      cuts.push([]);
    } finally {
      mol.delete();
    }
  });
  progress(list.length, list.length, `${list.length} molecules fragmented; pairing`);
  const all = pairMolecules(rdkit, canonical, cuts, cache, args.max_variable_atoms ?? DEFAULT_MAX_VARIABLE_ATOMS);
  const valueOf = (i: number) => {
    const v = values?.[i];
    return typeof v === "number" && Number.isFinite(v) ? v : undefined;
  };
  const deltaOf = (from: number, to: number) => {
    const a = valueOf(from);
    const b = valueOf(to);
    return a !== undefined && b !== undefined ? b - a : undefined;
  };
  const pairs = all.slice(0, maxPairs).map((p) => {
    const delta = deltaOf(p.from, p.to);
    return {
      from: p.from,
      to: p.to,
      constant: p.constant,
      transformation: p.transformation,
      ...(maxCuts > 1 ? { cuts: p.cuts } : {}),
      ...(delta !== undefined ? { delta: tidy(delta) } : {}),
    };
  });
  const out: Record<string, unknown> = { pairs, total_pairs: all.length, ...(all.length > maxPairs ? { truncated: true } : {}) };
  if (values !== undefined) {
    const groups = new Map<string, number[]>();
    for (const p of all) {
      const d = deltaOf(p.from, p.to);
      if (d === undefined) continue;
      const list = groups.get(p.transformation) ?? [];
      list.push(d);
      groups.set(p.transformation, list);
    }
    const summary: Summary[] = [...groups].map(([transformation, ds]) => {
      const mean = ds.reduce((s, x) => s + x, 0) / ds.length;
      const sd = ds.length > 1 ? Math.sqrt(ds.reduce((s, x) => s + (x - mean) ** 2, 0) / (ds.length - 1)) : undefined;
      return { transformation, count: ds.length, mean: tidy(mean), ...(sd !== undefined ? { sd: tidy(sd) } : {}) };
    });
    summary.sort((a, b) => b.count - a.count || (a.transformation < b.transformation ? -1 : a.transformation > b.transformation ? 1 : 0));
    out.transformations = summary.slice(0, MMP_MAX_SUMMARY);
    out.transformations_total = summary.length;
  }
  if (invalid.length > 0) out.invalid = invalid;
  const warning = saltStandardisedWarning(standardised);
  if (warning) out.warnings = [warning];
  return out;
}

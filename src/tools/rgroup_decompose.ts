import { decompose, labelOrder } from "../domain/chem/rgroup.js";
import { parseSmiles, withErrorLog } from "../domain/chem/rdkit.js";
import type { RDKit, RDKitMol } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import type { ChemTool, JsonSchema } from "../contract/tool.js";
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
  rowRefColumn,
  writeDerivedTable,
  type CanvasSetArgs,
  CANVAS_WRITE_ANNOTATIONS,
  sampleRows,
} from "./canvas-set.js";

const RGD_MAX_MOLECULES = 1_000;
const RGD_MAX_ATOMS = 200;
const CORE_MAX_LENGTH = 2_000;
/** RDKit's own time limit on the decomposition (process()), inside the tool's budget. */
const RGD_TIMEOUT_S = 25;

interface Args extends CanvasSetArgs {
  core: string;
  smiles_list?: string[];
  into?: string;
}

interface InvalidEntry {
  index: number;
  code: string;
  message: string;
}

/**
 * SMARTS-only syntax: logical operators, bond queries (~), recursion ($(...)) and atomic-number primitives
 * ([#6]). RDKit's SMILES parser accepts [#6] too, as an atom without hydrogens, which would then match nothing
 * like what the agent meant, so such a core is read as SMARTS.
 */
const SMARTS_ONLY = /[~;,!&$]|\[#\d/;

/** The core as RDKit reads it: a SMILES (as rdRGroupDecomposition users pass MolFromSmiles) unless it has SMARTS-only syntax or is no SMILES; else a SMARTS. */
function parseCore(rdkit: RDKit, core: string): { mol: RDKitMol; readAs: "smiles" | "smarts" } {
  if (!SMARTS_ONLY.test(core)) {
    const { value: mol } = withErrorLog(rdkit, () => rdkit.get_mol(core));
    if (mol && mol.is_valid()) return { mol, readAs: "smiles" };
    mol?.delete();
  }
  const { value: qmol, log } = withErrorLog(rdkit, () => rdkit.get_qmol(core));
  if (qmol && qmol.is_valid()) return { mol: qmol, readAs: "smarts" };
  qmol?.delete();
  const reason =
    log
      .split("\n")
      .find((l) => /Parse Error/.test(l))
      ?.replace(/^\[[0-9:.]+\]\s*/, "") ?? "RDKit could not parse it";
  throw new ToolError(
    "INVALID_SMARTS",
    `The core '${core.length > 80 ? `${core.slice(0, 77)}...` : core}' is neither a SMILES nor a SMARTS RDKit reads: ${reason}`,
    { argument: "core" },
    "Send the core as a SMILES (e.g. c1ccc(cc1)[*:1]) or a SMARTS (e.g. [#6]1:[#6]:[#6]:[#6]:[#6]:[#6]:1); R labels as [*:n] are optional.",
  );
}

const CANVAS_OUTPUT: JsonSchema = {
  type: "object",
  description: "The canvas form: one row per matched molecule written to a new table (into): source_row, smiles, core and R1, R2...",
  properties: {
    ...CANVAS_SET_HEADER_SCHEMA,
    into: { type: "string", description: "The table holding the decomposition (source_row is the source row's _row key)." },
    core_read_as: { type: "string", enum: ["smiles", "smarts"] },
    labels: { type: "array", items: { type: "string" }, description: "The R-group columns of into, in order." },
    core: { type: "string", description: "The labelled core, when the same in every row." },
    matched: { type: "integer", minimum: 0 },
    unmatched: { type: "integer", minimum: 0, description: "Rows the core does not match (not in into)." },
    invalid_rows: { type: "integer", minimum: 0, description: "Rows whose SMILES could not be read." },
    sample: { type: "array", items: { type: "object" }, description: "The first rows of into." },
  },
  required: ["canvas_id", "table", "smiles_column", "rows_read", "into", "core_read_as", "labels", "matched", "unmatched", "sample"],
  additionalProperties: false,
};

export function createRgroupDecomposeTool(canvases: () => CanvasManager = getCanvasManager): ChemTool<Args> {
  const tool: ChemTool<Args> = {
    kind: "chem",
    toolset: "medchem",
    name: "rgroup_decompose",
    title: "R-group decomposition",
    description: "R-group decomposition of a series on a core (SMILES or SMARTS, RDKit RGroupDecomposition): per molecule its core and R1, R2... as SMILES.",
    annotations: CANVAS_WRITE_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        core: {
          type: "string",
          minLength: 1,
          maxLength: CORE_MAX_LENGTH,
          examples: ["c1ccc([*:1])cc1"],
          description: "The core, SMILES or SMARTS, optionally labelled [*:1].",
        },
        smiles_list: {
          type: "array",
          minItems: 1,
          maxItems: RGD_MAX_MOLECULES,
          items: smilesProperty("A molecule."),
          examples: [["Clc1ccccc1", "Oc1ccccc1", "CCO"]],
          description: "The series.",
        },
        ...canvasSetProperties(),
        into: intoProperty(),
      },
      required: ["core"],
      oneOf: [{ required: ["smiles_list"] }, { required: ["canvas_id"] }],
      dependentRequired: { ...CANVAS_SET_DEPENDENCIES, into: ["canvas_id"] },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        core_read_as: {
          type: "string",
          enum: ["smiles", "smarts"],
          description: "How the core was read: as a SMILES, or as a SMARTS (SMARTS-only syntax, or not a valid SMILES).",
        },
        labels: {
          type: "array",
          items: { type: "string" },
          description: "The columns of the decomposition in RDKit's order: Core (when it differs between rows), then R1, R2, ...",
        },
        core: { type: "string", description: "The labelled core, when it is the same in every row (else each row carries its own)." },
        rows: {
          type: "array",
          description: "One row per matched molecule, in input order: index, then the labelled core (only when cores differ) and the R groups as SMILES.",
          items: {
            type: "object",
            properties: { index: { type: "integer", minimum: 0, description: "Index of the molecule in smiles_list." } },
            required: ["index"],
            additionalProperties: { type: "string" },
          },
        },
        unmatched: { type: "array", items: { type: "integer", minimum: 0 }, description: "Indices of the molecules the core does not match." },
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
      },
      required: ["core_read_as", "labels", "rows", "unmatched"],
      additionalProperties: false,
    },
    errors: ["INVALID_SMARTS", "INVALID_SMILES", "TIMEOUT", "CANVAS_DISABLED", "CANVAS_NOT_FOUND"],
    budgetMs: 30_000,
    mainForm: {
      applies: (args) => args.canvas_id !== undefined,
      outputSchema: CANVAS_OUTPUT,
      async run(args, ctx) {
        const chem = ctx.chem;
        if (!chem) throw new Error("rgroup_decompose's canvas form needs the chemistry pool");
        const set = await openCanvasSet(canvases(), args, ctx, RGD_MAX_MOLECULES, "rgroup_decompose");
        const result = (await chem.run(tool, { core: args.core, smiles_list: set.runnable.map((r) => r.smiles) })) as {
          core_read_as: "smiles" | "smarts";
          labels: string[];
          core?: string;
          rows: Array<Record<string, string | number>>;
          unmatched: number[];
          invalid?: unknown[];
        };
        const labels = result.labels.filter((l) => l !== "Core");
        const columns: ColumnSpec[] = [
          rowRefColumn("source_row", "The molecule"),
          { name: "smiles", type: "VARCHAR", description: "Its SMILES as the source table holds it." },
          { name: "core", type: "VARCHAR", description: "The labelled core as matched." },
          ...labels.map((l): ColumnSpec => ({ name: l.toLowerCase(), type: "VARCHAR", description: `R group ${l} as SMILES (attachment [*:n]).` })),
        ];
        const cells: CellValue[][] = result.rows.map((r) => {
          const at = set.runnable[r.index as number]!;
          return [at.row, at.smiles, (r.Core as string | undefined) ?? result.core ?? null, ...labels.map((l) => (r[l] as string | undefined) ?? null)];
        });
        const into = await writeDerivedTable(canvases(), set, {
          tool: "rgroup_decompose",
          suffix: "rgroups",
          ...(args.into !== undefined ? { into: args.into } : {}),
          columns,
          rows: cells,
          provenance: { core: args.core },
          signal: ctx.signal,
        });
        return {
          ...canvasSetHeader(set),
          into,
          core_read_as: result.core_read_as,
          labels: labels.map((l) => l.toLowerCase()),
          ...(result.core !== undefined ? { core: result.core } : {}),
          matched: cells.length,
          unmatched: result.unmatched.length,
          ...(result.invalid ? { invalid_rows: result.invalid.length } : {}),
          sample: sampleRows(columns, cells),
        };
      },
    },
    run(args, { rdkit }) {
      return runRgroupDecompose(rdkit, args);
    },
  };
  return tool;
}

export const rgroupDecomposeTool = createRgroupDecomposeTool();

/** The decomposition as the tool answers it (exported for tests, which pass an RDKit instance). */
export function runRgroupDecompose(rdkit: RDKit, args: Args): Record<string, unknown> {
  if (!args.smiles_list) throw new ToolError("INVALID_ARGUMENTS", "Give smiles_list (or canvas_id + table)", { path: "/smiles_list" });
  const list = args.smiles_list;
  const core = parseCore(rdkit, args.core);
  const mols: Array<RDKitMol | undefined> = [];
  const invalid: InvalidEntry[] = [];
  try {
    list.forEach((smiles, index) => {
      try {
        mols.push(parseSmiles(rdkit, smiles, { maxAtoms: RGD_MAX_ATOMS, argName: `smiles_list[${index}]` }));
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        mols.push(undefined);
        invalid.push({ index, code: err.code, message: err.message });
      }
    });
    const r = decompose(rdkit, core.mol, mols, RGD_TIMEOUT_S);
    if (!r.complete) {
      throw new ToolError(
        "TIMEOUT",
        `RDKit's R-group decomposition did not finish within ${RGD_TIMEOUT_S} s`,
        { timeout_s: RGD_TIMEOUT_S, molecules: list.length },
        "Send fewer molecules, or a core with explicit R labels ([*:1]) so fewer label assignments are tried.",
      );
    }
    const cores = new Set(r.rows.map((row) => row.groups.find(([l]) => l === "Core")?.[1]));
    const shared = cores.size === 1 ? [...cores][0] : undefined;
    const labels: string[] = [];
    const rows = r.rows.map((row) => {
      const out: Record<string, string | number> = { index: row.index };
      for (const [label, smiles] of row.groups) {
        if (label === "Core" && shared !== undefined) continue;
        out[label] = smiles;
        if (!labels.includes(label)) labels.push(label);
      }
      return out;
    });
    return {
      core_read_as: core.readAs,
      labels: labels.sort(labelOrder),
      ...(shared !== undefined ? { core: shared } : {}),
      rows,
      unmatched: r.unmatched,
      ...(invalid.length > 0 ? { invalid } : {}),
    };
  } finally {
    core.mol.delete();
    for (const m of mols) m?.delete();
  }
}

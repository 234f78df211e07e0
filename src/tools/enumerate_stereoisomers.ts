import { enumerateStereoisomers, type StereoisomerResult } from "../domain/chem/stereoisomers.js";
import { withMol } from "../domain/chem/rdkit.js";
import { keepingAtomMaps } from "../domain/chem/atom-maps.js";
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

interface EnumerateStereoisomersArgs extends CanvasSetArgs {
  smiles: string;
  only_unassigned?: boolean;
  into?: string;
}

/** Rows one canvas call enumerates (each in the pool, as a list entry), and isomers it writes at most. */
const CANVAS_MAX_ROWS = 2_000;
const CANVAS_MAX_ISOMERS = 100_000;

const CANVAS_OUTPUT: JsonSchema = {
  type: "object",
  description: "The canvas form: each row's stereoisomers written to a new table (into), one isomer a row.",
  properties: {
    ...CANVAS_SET_HEADER_SCHEMA,
    into: { type: "string", description: "The table of isomers (source_row is the source row's _row key)." },
    molecules: { type: "integer", minimum: 0, description: "Rows enumerated." },
    isomers_written: { type: "integer", minimum: 0 },
    truncated_rows: { type: "integer", minimum: 0, description: "Rows whose enumeration stopped early (max isomers or time)." },
    failed_rows: { type: "integer", minimum: 0, description: "Rows whose SMILES could not be enumerated (unparsable, too large, or out of time)." },
    note: { type: "string" },
    sample: { type: "array", items: { type: "object" }, description: "The first rows of into." },
  },
  required: ["canvas_id", "table", "smiles_column", "rows_read", "into", "molecules", "isomers_written", "sample"],
  additionalProperties: false,
};

/** Atoms of the molecule (each candidate costs one perception pass per combination). */
const STEREOISOMERS_MAX_ATOMS = 500;
/** Time the enumeration may take within the budget. */
const ENUMERATION_MS = 15_000;

type Result = StereoisomerResult & { isomer_count: number };

export function createEnumerateStereoisomersTool(canvases: () => CanvasManager = getCanvasManager): ChemTool<EnumerateStereoisomersArgs, Result> {
  const tool: ChemTool<EnumerateStereoisomersArgs, Result> = {
    kind: "chem",
    toolset: "medchem",
    name: "enumerate_stereoisomers",
    title: "Enumerate stereoisomers",
    description: "Stereoisomers of a molecule (RDKit EnumerateStereoisomers): every configuration of its unassigned centres and double bonds.",
    annotations: CANVAS_WRITE_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        smiles: smilesProperty("The molecule."),
        only_unassigned: {
          type: "boolean",
          default: true,
          description: "false: enumerate all, ignoring the given stereo.",
        },
        ...canvasSetProperties(),
        into: intoProperty(),
      },
      required: ["smiles"],
      dependentRequired: { ...CANVAS_SET_DEPENDENCIES, into: ["canvas_id"] },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        isomers: { type: "array", items: { type: "string" }, description: "Canonical isomeric SMILES, each isomer once." },
        isomer_count: { type: "integer", minimum: 0 },
        centres: { type: "integer", minimum: 0, description: "Tetrahedral centres enumerated." },
        double_bonds: { type: "integer", minimum: 0, description: "Double bonds enumerated." },
        truncated: { type: "boolean", description: "Not every combination was run (see truncated_by)." },
        truncated_by: { type: "string", enum: ["max_isomers", "time_budget"] },
      },
      required: ["isomers", "isomer_count", "centres", "double_bonds", "truncated"],
      additionalProperties: false,
    },
    errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE", "CANVAS_DISABLED", "CANVAS_NOT_FOUND"],
    budgetMs: 20_000,
    list: { maxItems: 100, budgetMs: 50_000 },
    mainForm: {
      applies: (args) => args.canvas_id !== undefined,
      outputSchema: CANVAS_OUTPUT,
      // The pool runs the rows; the call's time is the list form's.
      async run(args, ctx) {
        const runList = ctx.chem?.runList?.bind(ctx.chem);
        if (!runList) throw new Error("enumerate_stereoisomers' canvas form needs the chemistry pool");
        const set = await openCanvasSet(canvases(), args, ctx, CANVAS_MAX_ROWS, "enumerate_stereoisomers");
        const outcomes = await runList(
          tool,
          set.runnable.map((r) => ({ smiles: r.smiles, only_unassigned: args.only_unassigned ?? true })),
          { onChunk: (done, total) => ctx.progress(done, total, `${done} of ${total} rows enumerated`) },
        );
        const cells: CellValue[][] = [];
        let truncatedRows = 0;
        let failed = 0;
        let capped = false;
        outcomes.forEach((o, i) => {
          if (!o.ok) return void failed++;
          if (o.value.truncated) truncatedRows++;
          for (const [k, isomer] of o.value.isomers.entries()) {
            if (cells.length >= CANVAS_MAX_ISOMERS) return void (capped = true);
            cells.push([set.runnable[i]!.row, set.runnable[i]!.smiles, k + 1, isomer]);
          }
        });
        const columns: ColumnSpec[] = [
          rowRefColumn("source_row", "The molecule"),
          { name: "smiles", type: "VARCHAR", description: "Its SMILES as the source table holds it." },
          { name: "isomer_number", type: "INTEGER", description: "The isomer's number among the molecule's, from 1." },
          { name: "isomer_smiles", type: "VARCHAR", description: "The stereoisomer, canonical isomeric SMILES." },
        ];
        const into = await writeDerivedTable(canvases(), set, {
          tool: "enumerate_stereoisomers",
          suffix: "stereoisomers",
          ...(args.into !== undefined ? { into: args.into } : {}),
          columns,
          rows: cells,
          provenance: { only_unassigned: args.only_unassigned ?? true },
          signal: ctx.signal,
        });
        return {
          ...canvasSetHeader(set),
          into,
          molecules: set.runnable.length - failed,
          isomers_written: cells.length,
          ...(truncatedRows > 0 ? { truncated_rows: truncatedRows } : {}),
          ...(failed > 0 ? { failed_rows: failed } : {}),
          ...(capped ? { note: `Stopped at ${CANVAS_MAX_ISOMERS} isomers: narrow the rows with where and run the rest into another table.` } : {}),
          sample: sampleRows(columns, cells),
        };
      },
    },
    run({ smiles, only_unassigned }, { rdkit }) {
      return withMol(
        rdkit,
        smiles,
        (mol) => {
          const r = keepingAtomMaps(rdkit, mol, (m) =>
            enumerateStereoisomers(rdkit, m, { onlyUnassigned: only_unassigned ?? true, deadline: Date.now() + ENUMERATION_MS }),
          );
          const { isomers, ...rest } = r;
          return { isomers, isomer_count: isomers.length, ...rest };
        },
        { maxAtoms: STEREOISOMERS_MAX_ATOMS },
      );
    },
  };
  return tool;
}

export const enumerateStereoisomersTool = createEnumerateStereoisomersTool();

/**
 * canvas_export: a canvas table, or one SELECT on the canvas, written as a file into the export directory
 * (CHEMATIC_EXPORT_DIR): SDF (a molblock with RDKit 2D coordinates per row, drawn from its SMILES column, and every
 * column as a data item), CSV or Parquet, by the file's extension. The answer is small (the file's name, rows, bytes)
 * and links the file as a resource (chematic://export/<file>) for hosts that fetch resources; the rows never pass
 * through the agent's context. How the file is guarded and written (temporary name, then moved into place) is
 * src/domain/canvas/export.ts's.
 */
import { mdCode, mdFields } from "./chembl-markdown.js";
import { arr, int, markdownContent, str } from "./chembl-common.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import {
  EMPTY_MOLBLOCK,
  EXPORT_MIME_TYPES,
  ExportTextFile,
  ParquetExport,
  callerExportDir,
  csvLine,
  discardExport,
  publishExport,
  resolveExportTarget,
  sdfRecord,
  writeFailed,
  type ExportFormat,
  type ExportTarget,
} from "../domain/canvas/export.js";
import { streamQuery } from "../domain/canvas/queries.js";
import { MAX_SQL_LENGTH } from "../domain/canvas/sql-guard.js";
import { quoteIdent } from "../domain/canvas/tables.js";
import { jsonConverter, type JsonValue } from "../domain/canvas/values.js";
import type { Canvas } from "../domain/canvas/canvas.js";
import { withMol } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import { MAX_TOOL_BUDGET_MS } from "../contract/limits.js";
import { canvasFor, canvasIdProperty, defaultSmilesColumn } from "./canvas-common.js";
import { workerOnlyTool } from "./common.js";
import type { ContentBlock, ServiceContext, ServiceTool, ToolAnnotations } from "../contract/tool.js";

interface Args {
  canvas_id: string;
  table?: string;
  sql?: string;
  file: string;
  overwrite?: boolean;
  smiles_column?: string;
}

export interface CanvasExportResult {
  canvas_id: string;
  file: string;
  /** The file's absolute path on the server's machine: given to a local caller only (no authentication). */
  path?: string;
  uri: string;
  format: ExportFormat;
  rows: number;
  columns: string[];
  bytes: number;
  smiles_column?: string;
  molecules_failed?: number;
  elapsed_ms: number;
  [k: string]: unknown;
}

/** The URI scheme and prefix of an exported file as a resource (src/resources/exports.ts reads it). */
const EXPORT_URI_PREFIX = "chematic://export/";

/** The resource URI of an export named `relative` (each path segment percent-encoded). */
export function exportUri(relative: string): string {
  return EXPORT_URI_PREFIX + relative.split("/").map(encodeURIComponent).join("/");
}

/** Rows the SDF path sends to the workers at a time (and writes before reading the next): memory stays flat. */
const SDF_BATCH = 2_048;
/** How long the read of the rows may take (the query's timeout): longer than a query's, an export reads them all. */
const EXPORT_READ_TIMEOUT_MS = 120_000;
/** The column a record's title comes from, the first the rows have (the column stays a data item too). */
const TITLE_COLUMNS = ["title", "ID", "id", "name", "molecule_chembl_id", "chembl_id"];
/** The SMILES column an SDF of a query result draws, when the call names none: the first the result has. */
const SMILES_COLUMNS = ["smiles", "parent_smiles", "canonical_smiles", "standardized_smiles"];

/** Writes a file: not read-only, but it changes no canvas; a second identical call is refused (exists) unless overwrite. */
const EXPORT_ANNOTATIONS: ToolAnnotations = { readOnlyHint: false, idempotentHint: false, openWorldHint: false, destructiveHint: false };

/** Worker-only: the molblock of one row's SMILES (RDKit 2D coordinates, as MolToMolBlock makes for a molecule without a conformer). */
export const canvasExportMolblockTool = workerOnlyTool<{ smiles: string }, { molblock: string }>({
  toolset: "canvas",
  name: "canvas_export_molblock",
  title: "canvas_export: one molblock",
  description: "Worker-only: the molblock of one SMILES.",
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  run({ smiles }, { rdkit }) {
    return withMol(rdkit, smiles, (mol) => ({ molblock: mol.get_molblock() }));
  },
});

function renderExport(r: CanvasExportResult): string {
  return [
    "**Canvas export**",
    mdFields([
      ["file", { code: r.file }],
      ["path", r.path === undefined ? undefined : { code: r.path }],
      ["format", r.format],
      ["rows", r.rows],
      ["bytes", r.bytes],
      ["smiles_column", r.smiles_column === undefined ? undefined : { code: r.smiles_column }],
      ["molecules_failed", r.molecules_failed],
      ["uri", { code: r.uri }],
      ["elapsed_ms", r.elapsed_ms],
    ]),
    `- columns: ${r.columns.map((c) => mdCode(c)).join(" · ")}`,
  ].join("\n");
}

function exportContent(result: Record<string, unknown>): ContentBlock[] {
  const r = result as CanvasExportResult;
  return [...markdownContent(renderExport)(result), { type: "resource_link", uri: r.uri, name: r.file, mimeType: EXPORT_MIME_TYPES[r.format], size: r.bytes }];
}

/** The SELECT an export reads: the table's rows in their order (by _row when it has one), or the caller's query. */
function exportSql(canvas: Canvas, args: Args): string {
  const hasTable = args.table !== undefined;
  const hasSql = args.sql !== undefined;
  if (hasTable === hasSql) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      hasTable ? "Give table or sql, not both" : "Name what to export: table (a whole table) or sql (one SELECT)",
      { path: hasTable ? "/sql" : "/table", tables: [...canvas.tables.keys()] },
      "Pass table to export a table whole, or sql for a query's rows (e.g. the picks with their computed columns).",
    );
  }
  if (hasSql) return args.sql!;
  const meta = canvas.tables.get(args.table!);
  if (!meta) throw canvas.noTable(args.table!);
  const order = meta.columns.some((c) => c.name === "_row") ? " ORDER BY _row" : "";
  return `SELECT * FROM ${quoteIdent(meta.name)}${order}`;
}

export function createCanvasExportTool(canvases: () => CanvasManager = getCanvasManager): ServiceTool<Args, CanvasExportResult> {
  return {
    kind: "service",
    toolset: "canvas",
    name: "canvas_export",
    title: "Export a canvas table to a file",
    description: "Write a canvas table or a SELECT's rows to a file in the export directory: .sdf (molblocks, columns as data items), .csv or .parquet.",
    annotations: EXPORT_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        canvas_id: canvasIdProperty(),
        table: { type: "string", minLength: 1, maxLength: 63, description: "A table." },
        sql: { type: "string", minLength: 1, maxLength: MAX_SQL_LENGTH, description: "Or one SELECT." },
        file: { type: "string", minLength: 1, maxLength: 512, description: "File name, e.g. hits.sdf." },
        overwrite: { type: "boolean", description: "Replace a file of that name." },
        smiles_column: { type: "string", minLength: 1, maxLength: 63, description: "SDF: SMILES column." },
      },
      required: ["canvas_id", "file"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        canvas_id: str("The canvas read."),
        file: str("The file written, relative to the export directory."),
        path: str("Its absolute path on the server's machine (local servers only)."),
        uri: str("The file as a resource (resources/read)."),
        format: { type: "string", enum: ["sdf", "csv", "parquet"], description: "The format written." },
        rows: int("Rows written (SDF: records)."),
        columns: arr("The columns written, in order (SDF: data items).", { type: "string" }),
        bytes: int("The file's size."),
        smiles_column: str("SDF: the column drawn as molblocks."),
        molecules_failed: int("SDF: rows whose SMILES did not parse or was NULL, written with an empty molblock and their data items."),
        elapsed_ms: int("Time the export took."),
      },
      required: ["canvas_id", "file", "uri", "format", "rows", "columns", "bytes", "elapsed_ms"],
      additionalProperties: false,
    },
    errors: [
      "CANVAS_DISABLED",
      "CANVAS_NOT_FOUND",
      "INVALID_ARGUMENTS",
      "PATH_REFUSED",
      "QUERY_REFUSED",
      "QUERY_TIMEOUT",
      "QUEUE_TIMEOUT",
      "TOOL_DISABLED",
      "TIMEOUT",
      "WRITE_FAILED",
    ],
    budgetMs: MAX_TOOL_BUDGET_MS,
    // SDF of a large table draws every molecule: with a progress token the call may run past the usual budget.
    progressBudgetMs: () => 300_000,
    content: exportContent,
    async run(args, ctx) {
      const started = Date.now();
      const manager = canvases();
      const canvas = await canvasFor(manager, args.canvas_id, ctx);
      if (!manager.exportDir) {
        throw new ToolError(
          "TOOL_DISABLED",
          "Exporting files is off on this server: the operator has not set CHEMATIC_EXPORT_DIR",
          { path: "/file", setting: "CHEMATIC_EXPORT_DIR", value: "an existing, writable directory for exported files" },
          "Read the rows with chembl_dataframe_query instead (up to 1,000 a call), or ask the operator to set CHEMATIC_EXPORT_DIR.",
        );
      }
      const sql = exportSql(canvas, args);
      const owner = ctx.owner ?? null;
      const dir = await callerExportDir(manager.exportDir, owner);
      const target = await resolveExportTarget(dir, args.file, args.overwrite === true);
      return canvas.hold(async () => {
        try {
          const written = await writeExport(canvas, manager, sql, args, target, ctx);
          const bytes = await publishExport(target);
          return {
            canvas_id: canvas.id,
            file: target.relative,
            ...(owner === null ? { path: target.final } : {}),
            uri: exportUri(target.relative),
            format: target.format,
            ...written,
            bytes,
            elapsed_ms: Date.now() - started,
          };
        } catch (e) {
          await discardExport(target);
          throw writeFailed(e, dir);
        }
      });
    },
  };
}

/** What writing the rows told: their count and columns, and for SDF the column drawn and the rows left without a molecule. */
type Written = Pick<CanvasExportResult, "rows" | "columns" | "smiles_column" | "molecules_failed">;

async function writeExport(canvas: Canvas, manager: CanvasManager, sql: string, args: Args, target: ExportTarget, ctx: ServiceContext): Promise<Written> {
  const limits = { maxRows: manager.maxTableRows, timeoutMs: EXPORT_READ_TIMEOUT_MS, signal: ctx.signal };
  const tooMany = () =>
    new ToolError(
      "INVALID_ARGUMENTS",
      `The query gives more than ${manager.maxTableRows} rows; an export holds at most that many (as a canvas table does)`,
      { path: args.sql !== undefined ? "/sql" : "/table", max_rows: manager.maxTableRows },
      "Narrow the query (WHERE) or split the export over several files (e.g. by a range of _row).",
    );
  if (target.format === "parquet") {
    const parquet = await ParquetExport.create(canvas.duckdb, manager.memoryLimitMb, manager.threads);
    try {
      let names: string[] = [];
      const read = await streamQuery(canvas, sql, limits, {
        columns: async (columns) => {
          names = columns.map((c) => c.name);
          await parquet.columns(columns);
        },
        chunk: (chunk) => parquet.chunk(chunk),
      });
      if (read.truncated) throw tooMany();
      ctx.progress(1, 2, `${read.rows} rows read; writing Parquet`);
      await parquet.write(target.temporary);
      return { rows: read.rows, columns: names };
    } finally {
      parquet.close();
    }
  }
  // CSV and SDF: the rows as JSON values, read whole first (the query slot is given back before the molecules are drawn).
  const convert = jsonConverter(canvas.duckdb);
  let names: string[] = [];
  const rows: JsonValue[][] = [];
  const read = await streamQuery(canvas, sql, limits, {
    columns: (columns) => {
      names = columns.map((c) => c.name);
    },
    chunk: (chunk) => {
      for (const row of chunk.convertRows(convert)) rows.push(row);
    },
  });
  if (read.truncated) throw tooMany();
  const file = await ExportTextFile.create(target);
  try {
    if (target.format === "csv") {
      await file.write(csvLine(names));
      for (const row of rows) await file.write(csvLine(row));
      await file.finish();
      return { rows: rows.length, columns: names };
    }
    const smilesColumn = sdfSmilesColumn(canvas, args, names);
    const failed = await writeSdf(file, names, rows, names.indexOf(smilesColumn), ctx);
    await file.finish();
    return { rows: rows.length, columns: names, smiles_column: smilesColumn, molecules_failed: failed };
  } catch (e) {
    await file.close();
    throw e;
  }
}

/** The column an SDF draws: the one named, else (a table) the canvas tools' default, else the first SMILES-named column the rows have. */
function sdfSmilesColumn(canvas: Canvas, args: Args, names: readonly string[]): string {
  const given = args.smiles_column;
  const chosen = given ?? (args.table !== undefined ? defaultSmilesColumn(canvas, args.table, undefined) : SMILES_COLUMNS.find((c) => names.includes(c)));
  if (chosen !== undefined && names.includes(chosen)) return chosen;
  throw new ToolError(
    "INVALID_ARGUMENTS",
    chosen === undefined ? "No SMILES column to draw the SDF's molecules from" : `The rows have no column ${chosen}`,
    { path: "/smiles_column", columns: names },
    "Pass smiles_column naming the column that holds the SMILES (or select one named smiles), or export as .csv or .parquet.",
  );
}

/** The SDF records of `rows`, in batches: each batch's molblocks drawn in the workers, then written. Answers the rows without a molecule. */
async function writeSdf(file: ExportTextFile, names: readonly string[], rows: readonly JsonValue[][], smilesAt: number, ctx: ServiceContext): Promise<number> {
  const runList = ctx.chem?.runList?.bind(ctx.chem);
  if (!runList) throw new Error("canvas_export needs the chemistry pool (ServiceContext.chem.runList)");
  const titleAt = TITLE_COLUMNS.map((c) => names.indexOf(c)).find((i) => i >= 0);
  let failed = 0;
  for (let start = 0; start < rows.length; start += SDF_BATCH) {
    const batch = rows.slice(start, start + SDF_BATCH);
    const positions: number[] = [];
    const items: Array<{ smiles: string }> = [];
    batch.forEach((row, i) => {
      const smiles = row[smilesAt];
      if (typeof smiles === "string" && smiles.trim() !== "") {
        positions.push(i);
        items.push({ smiles });
      }
    });
    const molblocks: Array<string | null> = batch.map(() => null);
    if (items.length > 0) {
      const outcomes = await runList(canvasExportMolblockTool, items, { budgetMs: Math.max(1_000, ctx.deadline - Date.now() - 2_000) });
      outcomes.forEach((o, k) => {
        if (o.ok) molblocks[positions[k]!] = o.value.molblock;
        else if (o.error.code === "TIMEOUT") {
          throw new ToolError(
            "TIMEOUT",
            `The export ran out of time drawing molecules (${start + k} of ${rows.length} rows written); nothing was left behind`,
            { rows_done: start + k, rows: rows.length },
            "Call again with a progress token (the export may then run up to 5 minutes), export fewer rows (sql with a WHERE), or export .csv / .parquet (no molecules to draw).",
          );
        }
      });
    }
    const text: string[] = [];
    batch.forEach((row, i) => {
      const molblock = molblocks[i];
      if (molblock === null) failed++;
      const title = titleAt === undefined ? "" : (row[titleAt] ?? "");
      text.push(
        sdfRecord(
          molblock ?? EMPTY_MOLBLOCK,
          typeof title === "string" ? title : String(title),
          names.map((n, j) => [n, row[j] ?? null] as const),
        ),
      );
    });
    await file.write(text.join(""));
    ctx.progress(Math.min(rows.length, start + SDF_BATCH), rows.length, `${Math.min(rows.length, start + SDF_BATCH)} of ${rows.length} records written`);
  }
  return failed;
}

export const canvasExportTool = createCanvasExportTool();

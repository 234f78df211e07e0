/**
 * canvas_import: a molecule set as a table on a canvas. The records are read in the domain
 * (src/domain/canvas/import.ts), canonicalised in the worker pool as one list call (canonical_smiles over
 * every worker), and staged (mode create) or appended (mode append) with explicit column types.
 */
import { mdCode, mdFields, mdInline } from "./chembl-markdown.js";
import { arr, int, markdownContent, obj, str } from "./chembl-common.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import type { Canvas } from "../domain/canvas/canvas.js";
import type { CellValue, ColumnSpec, ColumnType, TableMeta } from "../domain/canvas/tables.js";
import { ROW_KEY_COLUMN } from "../domain/canvas/annotations.js";
import { csvSource, inferColumnType, readImportFile, sdfSource, smiSource, smilesListSource, toCell, type ImportSource } from "../domain/canvas/import.js";
import { ToolError } from "../domain/errors.js";
import { MAX_ARRAY_LENGTH, MAX_STRING_BYTES, MAX_TOOL_BUDGET_MS, clipText } from "../contract/limits.js";
import type { ServiceContext, ServiceTool } from "../contract/tool.js";
import { canonicalSmilesTool } from "./canonical_smiles.js";
import { canvasFor, canvasIdProperty } from "./canvas-common.js";

interface Args {
  canvas_id?: string;
  table?: string;
  mode?: "create" | "append";
  smiles_list?: string[];
  sdf?: string;
  csv?: string;
  path?: string;
  smiles_column?: string;
  id_column?: string;
}

export interface ImportResult {
  canvas_id: string;
  table: string;
  mode: "create" | "append";
  counts: { rows: number; parsed: number; failed: number; table_rows: number };
  columns: Array<{ name: string; type: string }>;
  sample: Array<Record<string, CellValue>>;
  failures?: Array<{ row_id: number; input: string; error: string; message: string }>;
  renamed?: Record<string, string>;
  [k: string]: unknown;
}

/** Records one inline call (smiles_list, sdf, csv) imports at most; a path imports up to the table cap. */
const IMPORT_MAX_INLINE_RECORDS = 10_000;
const SAMPLE_ROWS = 3;
const FAILURES_SHOWN = 5;
const INPUT_CLIP = 120;
/** Our own columns: a data column (tag, CSV header) with one of these names, in any case, is renamed. */
const RESERVED = ["row_id", "input", "smiles", "error", "id"];

const FIXED_COLUMNS: ColumnSpec[] = [
  { name: "row_id", type: "BIGINT", description: "Position in the table, from 1 (appended rows continue the count)." },
  { name: "input", type: "VARCHAR", description: "The molecule as given: the SMILES, or an SDF record's title ('sdf record N' when blank)." },
  { name: "smiles", type: "VARCHAR", description: "RDKit canonical SMILES (isomeric); NULL when the input does not parse." },
  { name: "error", type: "VARCHAR", description: "Why the input does not parse (an error code such as INVALID_SMILES); NULL when it parses." },
];
const ID_COLUMN: ColumnSpec = { name: "id", type: "VARCHAR", description: "The identifier: the CSV's id_column, or a .smi line's name." };

function renderImport(r: ImportResult): string {
  const lines = [
    "**Canvas import**",
    mdFields([
      ["canvas_id", { code: r.canvas_id }],
      ["table", { code: r.table }],
      ["mode", r.mode],
      ["rows", r.counts.rows],
      ["parsed", r.counts.parsed],
      ["failed", r.counts.failed],
      ["table_rows", r.counts.table_rows],
    ]),
    `- columns: ${r.columns.map((c) => `${mdCode(c.name)} ${c.type}`).join(", ")}`,
  ];
  if (r.renamed)
    lines.push(
      `- renamed: ${Object.entries(r.renamed)
        .map(([from, to]) => `${mdInline(from)} -> ${mdCode(to)}`)
        .join(", ")}`,
    );
  for (const f of r.failures ?? []) lines.push(`- failed row ${f.row_id}: ${mdInline(f.input)} ${f.error}: ${mdInline(f.message)}`);
  return lines.join("\n");
}

function invalid(message: string, path: string, details: Record<string, unknown> = {}, hint?: string): ToolError {
  return new ToolError("INVALID_ARGUMENTS", `Invalid arguments: ${message}`, { path, ...details }, hint);
}

/** Column names for the data columns: as given, unless they clash (case-insensitively, as DuckDB compares) with ours or each other. */
function nameColumns(
  names: readonly string[],
  previous: Record<string, string>,
  alsoTaken: readonly string[] = [],
): { columns: Map<string, string>; renamed: Record<string, string> } {
  const taken = new Set([...RESERVED, ...alsoTaken.map((n) => n.toLowerCase())]);
  for (const to of Object.values(previous)) taken.add(to.toLowerCase());
  const columns = new Map<string, string>();
  const renamed: Record<string, string> = {};
  for (const raw of names) {
    if (previous[raw] !== undefined) {
      columns.set(raw, previous[raw]);
      renamed[raw] = previous[raw];
      continue;
    }
    // eslint-disable-next-line no-control-regex
    let name = clipText(raw.replace(/[\u0000-\u001f\u007f]/g, " ").trim(), 100).replace(/\.\.\.$/, "");
    if (name === "") name = "column";
    if (taken.has(name.toLowerCase())) {
      let k = 2;
      while (taken.has(`${name}_${k}`.toLowerCase())) k++;
      name = `${name}_${k}`;
    }
    taken.add(name.toLowerCase());
    columns.set(raw, name);
    if (name !== raw) renamed[raw] = name;
  }
  return { columns, renamed };
}

async function readSource(args: Args, manager: CanvasManager): Promise<{ source: ImportSource; kind: string; path?: string }> {
  const given = (["smiles_list", "sdf", "csv", "path"] as const).filter((k) => args[k] !== undefined);
  if (given.length !== 1) throw invalid("send exactly one of smiles_list, sdf, csv or path", given.length === 0 ? "/" : `/${given[1]}`, { given });
  const smilesColumn = args.smiles_column ?? "smiles";
  if (args.smiles_list) return { source: smilesListSource(args.smiles_list), kind: "smiles_list" };
  const maxColumns = manager.importMaxColumns;
  if (args.sdf !== undefined) return { source: sdfSource(args.sdf, 1, maxColumns), kind: "sdf" };
  if (args.csv !== undefined) return { source: csvSource(args.csv, smilesColumn, args.id_column, "/csv", maxColumns), kind: "csv" };
  const rel = args.path!.trim();
  if (!manager.importDir) {
    throw new ToolError(
      "TOOL_DISABLED",
      "Importing from a path is off on this server: the operator has not set CHEMATIC_IMPORT_DIR",
      { path: "/path", setting: "CHEMATIC_IMPORT_DIR", value: "an existing directory holding the files to import" },
      "Send the molecules inline instead (smiles_list, sdf or csv, in appended calls with mode append), or ask the operator to set CHEMATIC_IMPORT_DIR.",
    );
  }
  const file = await readImportFile(manager.importDir, rel, manager.importMaxBytes);
  const source =
    file.kind === "smi"
      ? smiSource(file.text)
      : file.kind === "csv"
        ? csvSource(file.text, smilesColumn, args.id_column, "/path", maxColumns)
        : sdfSource(file.text, 1, maxColumns, "/path");
  return { source, kind: `path:${file.kind}`, path: rel };
}

async function canonicalise(source: ImportSource, ctx: ServiceContext): Promise<Array<{ smiles: string | null; error: string | null; message?: string }>> {
  const runList = ctx.chem?.runList?.bind(ctx.chem);
  if (!runList) throw new Error("canvas_import needs the chemistry pool (ServiceContext.chem.runList)");
  const out: Array<{ smiles: string | null; error: string | null; message?: string }> = source.records.map((r) =>
    r.problem !== undefined ? { smiles: null, error: "INVALID_SMILES", message: r.problem } : { smiles: null, error: null },
  );
  const positions: number[] = [];
  const items: Array<{ smiles: string }> = [];
  source.records.forEach((r, i) => {
    if (r.problem === undefined) {
      positions.push(i);
      items.push({ smiles: r.molecule });
    }
  });
  if (items.length === 0) return out;
  // A few seconds are kept for staging the rows once the chemistry is done.
  const budgetMs = Math.max(1_000, ctx.deadline - Date.now() - 5_000);
  const outcomes = await runList(canonicalSmilesTool, items, {
    budgetMs,
    onChunk: (done, total) => ctx.progress(done, total + 1, `${done} of ${total} molecules canonicalised`),
  });
  let timedOut = 0;
  outcomes.forEach((o, k) => {
    const at = positions[k]!;
    if (o.ok) out[at] = { smiles: o.value.canonical as string, error: null };
    else {
      if (o.error.code === "TIMEOUT") timedOut++;
      out[at] = { smiles: null, error: o.error.code, message: o.error.message };
    }
  });
  if (timedOut > 0) {
    throw new ToolError(
      "TIMEOUT",
      `${timedOut} of ${items.length} molecules were not canonicalised within the call's budget; nothing was written`,
      { not_done: timedOut, records: items.length },
      "Import fewer molecules a call (then add the rest with mode append), or call with a progress token so a path import gets the longer budget.",
    );
  }
  return out;
}

export function createCanvasImportTool(canvases: () => CanvasManager = getCanvasManager): ServiceTool<Args, ImportResult> {
  return {
    kind: "service",
    toolset: "canvas",
    name: "canvas_import",
    title: "Canvas: import molecules as a table",
    description:
      "Put a molecule set (smiles_list, sdf, csv or a file path) on a canvas as a SQL table: each row gets RDKit's canonical SMILES and its data columns.",
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false, destructiveHint: false },
    inputSchema: {
      type: "object",
      properties: {
        canvas_id: { ...canvasIdProperty(), description: "The canvas; omit for a new one." },
        table: { type: "string", maxLength: 63, pattern: "^[a-z][a-z0-9_]{0,62}$", default: "library", description: "Table name." },
        mode: {
          type: "string",
          enum: ["create", "append"],
          default: "create",
          description: "create a table, or append to one.",
        },
        smiles_list: {
          type: "array",
          minItems: 1,
          maxItems: MAX_ARRAY_LENGTH,
          items: { type: "string", maxLength: 10_000 },
          description: "SMILES strings.",
        },
        sdf: { type: "string", minLength: 1, maxLength: MAX_STRING_BYTES, description: "SDF text (records ending $$$$)." },
        csv: { type: "string", minLength: 1, maxLength: MAX_STRING_BYTES, description: "CSV text with a header." },
        path: { type: "string", minLength: 1, maxLength: 1024, description: "A .smi, .csv, .sdf(.gz) file in CHEMATIC_IMPORT_DIR." },
        smiles_column: { type: "string", minLength: 1, maxLength: 200, default: "smiles", description: "With csv: the SMILES column." },
        id_column: { type: "string", minLength: 1, maxLength: 200, description: "With csv: a column kept as id." },
      },
      oneOf: [{ required: ["smiles_list"] }, { required: ["sdf"] }, { required: ["csv"] }, { required: ["path"] }],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        canvas_id: str("The canvas holding the table."),
        table: str("The table."),
        mode: { type: "string", enum: ["create", "append"] },
        counts: obj("Rows of this call, and of the whole table.", {
          rows: int("Records this call imported."),
          parsed: int("Of them, with a canonical smiles."),
          failed: int("Of them, with an error."),
          table_rows: int("Rows the table holds now."),
        }),
        columns: arr("The table's columns, in order.", obj("A column.", { name: str("Name."), type: str("DuckDB type.") })),
        sample: arr("The first rows of this call (NULL cells left out).", { type: "object" }),
        failures: arr(
          "The first rows that did not parse (present only when some failed).",
          obj("A failed row.", { row_id: int("Its row_id."), input: str("Its input (clipped)."), error: str("Error code."), message: str("Why.") }),
        ),
        renamed: {
          type: "object",
          additionalProperties: { type: "string" },
          description: "Data columns whose names clashed, tag or header -> column (present only then).",
        },
      },
      required: ["canvas_id", "table", "mode", "counts", "columns", "sample"],
      additionalProperties: false,
    },
    errors: ["CANVAS_DISABLED", "CANVAS_NOT_FOUND", "CANVAS_FULL", "PATH_REFUSED", "TOOL_DISABLED", "QUERY_REFUSED", "QUOTA_EXCEEDED"],
    budgetMs: MAX_TOOL_BUDGET_MS,
    progressBudgetMs: () => 300_000,
    content: markdownContent(renderImport),
    async run(args, ctx) {
      const manager = canvases();
      if (!(await manager.available())) throw manager.disabledError();
      const table = args.table ?? "library";
      const mode = args.mode ?? "create";
      await manager.refuseKeyword(table, "/table");
      if (mode === "append" && args.canvas_id === undefined) throw invalid("mode append needs the canvas_id of the table to append to", "/canvas_id");
      let canvas: Canvas | undefined = args.canvas_id !== undefined ? await canvasFor(manager, args.canvas_id, ctx) : undefined;
      const work = async (): Promise<ImportResult> => {
        const existing = canvas?.tables.get(table);
        if (mode === "create" && existing)
          throw invalid(
            `table ${table} already exists on canvas ${canvas!.id}`,
            "/table",
            { tables: [...canvas!.tables.keys()] },
            "Use another table name, or mode append to add rows to it.",
          );
        if (mode === "append") {
          if (!existing) throw canvas!.noTable(table);
          if (existing.provenance.kind !== "import")
            throw invalid(
              `table ${table} was not made by canvas_import; only imported tables take appended rows`,
              "/table",
              {},
              "Import into a new table name.",
            );
        }
        const { source, kind, path } = await readSource(args, manager);
        const n = source.records.length;
        if (n === 0) throw invalid("the input holds no record", "/");
        if (!kind.startsWith("path:") && n > IMPORT_MAX_INLINE_RECORDS)
          throw invalid(
            `the input holds ${n} records; one call imports at most ${IMPORT_MAX_INLINE_RECORDS}`,
            `/${kind}`,
            { records: n },
            "Split it and send the rest with mode append.",
          );
        const before = existing?.row_count ?? 0;
        // The row cap before any chemistry runs (the byte cap is checked when the rows are written).
        if (before + n > manager.maxTableRows) throw manager.tooManyRows(table, before + n);
        const chem = await canonicalise(source, ctx);

        const previous = (existing?.provenance.renamed as Record<string, string> | undefined) ?? {};
        // Appending to an annotated table: a data column named like a computed one (mw, qed, _row) is renamed,
        // or its values would land in a column canvas_annotate owns and overwrites.
        const computed = mode === "append" && canvas && existing ? [ROW_KEY_COLUMN, ...canvas.computedColumns(table)] : [];
        const { columns: names, renamed } = nameColumns(source.dataColumns, previous, computed);
        const dataSpecs: ColumnSpec[] = source.dataColumns.map((raw) => ({
          name: names.get(raw)!,
          type: inferColumnType(source.records.map((r) => r.data?.[raw])),
          description: kind.endsWith("sdf") || kind.endsWith("sdf.gz") ? `SDF tag ${raw}` : `CSV column ${raw}`,
        }));
        const columns = [...FIXED_COLUMNS, ...(source.hasId ? [ID_COLUMN] : []), ...dataSpecs];
        const rows: CellValue[][] = source.records.map((r, i) => [
          before + i + 1,
          r.input,
          chem[i]!.smiles,
          chem[i]!.error,
          ...(source.hasId ? [r.id ?? null] : []),
          ...source.dataColumns.map((raw, k) => toCell(dataSpecs[k]!.type as ColumnType, r.data?.[raw])),
        ]);
        const calls = ((existing?.provenance.calls as number | undefined) ?? 0) + 1;
        const sources = [...new Set([...((existing?.provenance.sources as string[] | undefined) ?? []), kind])];
        const provenance: Record<string, unknown> = { kind: "import", sources, calls, renamed: { ...previous, ...renamed } };
        if (path !== undefined) provenance.path = path;
        let meta: TableMeta;
        if (!canvas) {
          const made = await manager.stageOnNewCanvas(table, columns, rows, provenance, ctx.signal, ctx.owner ?? null);
          canvas = made.canvas;
          meta = made.table;
        } else if (mode === "append") meta = await canvas.appendRows(table, columns, rows, provenance, ctx.signal);
        else meta = await canvas.stage(table, columns, rows, provenance, ctx.signal);
        ctx.progress(n + 1, n + 1, "staged");

        const parsed = chem.filter((c) => c.error === null).length;
        const result: ImportResult = {
          canvas_id: canvas.id,
          table,
          mode,
          counts: { rows: n, parsed, failed: n - parsed, table_rows: meta.row_count },
          columns: meta.columns.map((c) => ({ name: c.name, type: c.type })),
          sample: rows.slice(0, SAMPLE_ROWS).map((row) => {
            const o: Record<string, CellValue> = {};
            columns.forEach((c, k) => {
              const v = row[k] ?? null;
              if (v !== null) o[c.name] = typeof v === "string" ? clipText(v, INPUT_CLIP) : v;
            });
            return o;
          }),
        };
        const failures = chem
          .map((c, i) => ({ c, i }))
          .filter(({ c }) => c.error !== null)
          .slice(0, FAILURES_SHOWN)
          .map(({ c, i }) => ({
            row_id: before + i + 1,
            input: clipText(source.records[i]!.input, INPUT_CLIP),
            error: c.error!,
            message: clipText(c.message ?? "", 200),
          }));
        if (failures.length > 0) result.failures = failures;
        if (Object.keys(renamed).length > 0) result.renamed = renamed;
        return result;
      };
      return canvas ? canvas.hold(work) : work();
    },
  };
}

export const canvasImportTool = createCanvasImportTool();

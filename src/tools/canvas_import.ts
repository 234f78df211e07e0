/**
 * canvas_import: a molecule set as a table on a canvas. The records are read in the domain
 * (src/domain/canvas/import.ts), canonicalised in the worker pool as one list call (canonical_smiles over
 * every worker; with standardize or dedupe the worker-only canvas_import_record, which also gives each record's
 * standardised parent and its InChIKey on the one parse of the record), deduplicated on the parent InChIKey when
 * asked, and staged (mode create) or appended (mode append) with explicit column types.
 */
import { TABLE_APP_URI } from "../contract/apps.js";
import { mdCode, mdFields, mdInline } from "./chembl-markdown.js";
import { arr, int, markdownContent, obj, str } from "./chembl-common.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import type { Canvas } from "../domain/canvas/canvas.js";
import type { CellValue, ColumnSpec, ColumnType, TableMeta } from "../domain/canvas/tables.js";
import { ROW_KEY_COLUMN } from "../domain/canvas/annotations.js";
import {
  DEFAULT_TITLE_COLUMN,
  IMPORT_COLUMN_NAMES,
  csvSource,
  importColumns,
  inferColumnType,
  nameDataColumns,
  readImportFile,
  sdfSource,
  smiSource,
  smilesListSource,
  toCell,
  type ImportSource,
} from "../domain/canvas/import.js";
import { computeRepresentations } from "../domain/chem/representations.js";
import { withMol } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import { MAX_ARRAY_LENGTH, MAX_STRING_BYTES, MAX_TOOL_BUDGET_MS, clipText } from "../contract/limits.js";
import type { ChemTool, ServiceContext, ServiceTool } from "../contract/tool.js";
import { canonicalSmilesTool } from "./canonical_smiles.js";
import { canvasFor, canvasIdProperty } from "./canvas-common.js";
import { workerOnlyTool } from "./common.js";
import { defaultParentOf } from "../domain/chem/standardize.js";

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
  title_column?: string;
  standardize?: boolean;
  dedupe?: boolean;
}

export interface ImportResult {
  canvas_id: string;
  table: string;
  mode: "create" | "append";
  counts: { rows: number; parsed: number; failed: number; table_rows: number; duplicates?: number };
  columns: Array<{ name: string; type: string; role?: "title" }>;
  sample: Array<Record<string, CellValue>>;
  failures?: Array<{ row_id: number; input: string; error: string; message: string }>;
  duplicate_examples?: Array<{ record: number; input: string; row_id: number }>;
  renamed?: Record<string, string>;
  [k: string]: unknown;
}

/** Records one inline call (smiles_list, sdf, csv) imports at most; a path imports up to the table cap. */
const IMPORT_MAX_INLINE_RECORDS = 10_000;
const SAMPLE_ROWS = 3;
const FAILURES_SHOWN = 5;
const DUPLICATES_SHOWN = 3;
const INPUT_CLIP = 120;

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
      ...(r.counts.duplicates !== undefined ? ([["duplicates", r.counts.duplicates]] as Array<[string, number]>) : []),
      ["table_rows", r.counts.table_rows],
    ]),
    `- columns: ${r.columns.map((c) => `${mdCode(c.name)} ${c.type}${c.role === "title" ? " (record title)" : ""}`).join(", ")}`,
  ];
  if (r.renamed)
    lines.push(
      `- renamed (clashed with another column): ${Object.entries(r.renamed)
        .map(([from, to]) => `${mdInline(from)} -> ${mdCode(to)}`)
        .join(", ")}`,
    );
  if (r.duplicate_examples)
    lines.push(`- merged duplicates, e.g.: ${r.duplicate_examples.map((d) => `record ${d.record} ${mdInline(d.input)} -> row ${d.row_id}`).join("; ")}`);
  for (const f of r.failures ?? []) lines.push(`- failed row ${f.row_id}: ${mdInline(f.input)} ${f.error}: ${mdInline(f.message)}`);
  return lines.join("\n");
}

function invalid(message: string, path: string, details: Record<string, unknown> = {}, hint?: string): ToolError {
  return new ToolError("INVALID_ARGUMENTS", `Invalid arguments: ${message}`, { path, ...details }, hint);
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

interface RecordArgs {
  /** The record's text: a SMILES or a molblock. */
  smiles: string;
}

interface RecordValues {
  /** RDKit canonical SMILES of the record as given. */
  canonical: string;
  /** The standardize tool's parent_smiles with its defaults; null when standardising refused (parent_error). */
  parent: string | null;
  /** The parent's standard InChIKey; null without a parent or where InChI cannot represent it. */
  parent_inchikey: string | null;
  /** Why the record has no parent (a molecule over standardize's atom cap, a parent RDKit cannot sanitise). */
  parent_error?: { code: string; message: string };
}

/** The standard InChIKey of a SMILES the server wrote (null where InChI cannot represent it). */
function inchiKeyOf(rdkit: Parameters<ChemTool["run"]>[1]["rdkit"], smiles: string): string | null {
  try {
    return withMol(rdkit, smiles, (m) => computeRepresentations(rdkit, m, new Set(["inchikey"])).values.inchikey ?? null);
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}

/**
 * Worker-only: one record of canvas_import with standardize or dedupe, on one parse of its text: its canonical SMILES
 * (canonical_smiles'), its standardised parent (the standardize tool's with its defaults) and the parent's standard
 * InChIKey (as canvas_annotate's inchikey computes it, from the parent SMILES, so a record gives the same key from an
 * SDF and from a SMILES). Not listed in tools/list; canvas_import runs it through ChemRunner.runList. A record that
 * does not parse answers INVALID_SMILES (or MOLECULE_TOO_LARGE).
 */
export const canvasImportRecordTool = workerOnlyTool<RecordArgs, RecordValues>({
  toolset: "canvas",
  name: "canvas_import_record",
  title: "canvas_import: one record",
  description: "Worker-only: canonical SMILES, standardised parent and parent InChIKey of one record.",
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  run({ smiles }, { rdkit }) {
    return withMol(rdkit, smiles, (mol): RecordValues => {
      const canonical = mol.get_smiles();
      let parent: string;
      try {
        parent = defaultParentOf(rdkit, mol, smiles);
      } catch (e) {
        if (e instanceof ToolError) return { canonical, parent: null, parent_inchikey: null, parent_error: { code: e.code, message: e.message } };
        throw e;
      }
      return { canonical, parent, parent_inchikey: inchiKeyOf(rdkit, parent) };
    });
  },
});

/** What the chemistry gives one record: the row's cells, and the key it is deduplicated on. */
interface RecordChem {
  /** The smiles column: the canonical SMILES, or with standardize the parent's. */
  smiles: string | null;
  /** With standardize: the canonical SMILES of the record as given. */
  original: string | null;
  /** The parent's InChIKey (with standardize or dedupe). */
  key: string | null;
  error: string | null;
  message?: string;
}

/** Each record's chemistry, in the worker pool as one list call. TIMEOUT (nothing written) when the budget leaves records undone. */
async function chemistry(source: ImportSource, ctx: ServiceContext, options: { standardize: boolean; dedupe: boolean }): Promise<RecordChem[]> {
  const runList = ctx.chem?.runList?.bind(ctx.chem);
  if (!runList) throw new Error("canvas_import needs the chemistry pool (ServiceContext.chem.runList)");
  const out: RecordChem[] = source.records.map((r) =>
    r.problem !== undefined
      ? { smiles: null, original: null, key: null, error: "INVALID_SMILES", message: r.problem }
      : { smiles: null, original: null, key: null, error: null },
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
  const parents = options.standardize || options.dedupe;
  const verb = options.standardize ? "standardised" : "canonicalised";
  const list = {
    budgetMs,
    onChunk: (done: number, total: number) => ctx.progress(done, total + 1, `${done} of ${total} molecules ${verb}`),
  };
  const outcomes: Array<{ ok: true; value: RecordChem } | { ok: false; error: { code: string; message: string } }> = parents
    ? (await runList(canvasImportRecordTool, items, list)).map((o) => {
        if (!o.ok) return o;
        const v = o.value;
        if (!options.standardize) return { ok: true, value: { smiles: v.canonical, original: null, key: v.parent_inchikey, error: null } };
        return {
          ok: true,
          value: {
            smiles: v.parent,
            original: v.canonical,
            key: v.parent_inchikey,
            error: v.parent_error?.code ?? null,
            ...(v.parent_error ? { message: v.parent_error.message } : {}),
          },
        };
      })
    : (await runList(canonicalSmilesTool, items, list)).map((o) =>
        o.ok ? { ok: true, value: { smiles: o.value.canonical as string, original: null, key: null, error: null } } : o,
      );
  let timedOut = 0;
  outcomes.forEach((o, k) => {
    const at = positions[k]!;
    if (o.ok) out[at] = o.value;
    else {
      if (o.error.code === "TIMEOUT") timedOut++;
      out[at] = { smiles: null, original: null, key: null, error: o.error.code, message: o.error.message };
    }
  });
  if (timedOut > 0) {
    throw new ToolError(
      "TIMEOUT",
      `${timedOut} of ${items.length} molecules were not ${verb} within the call's budget; nothing was written`,
      { not_done: timedOut, records: items.length },
      "Import fewer molecules a call (then add the rest with mode append), or call with a progress token so a path import gets the longer budget.",
    );
  }
  return out;
}

/**
 * Which records are written and which merge into an earlier row (dedupe): the first record of each parent InChIKey
 * is kept, a later one merges into it, and on append a record whose key the table already holds merges into that
 * row (`inTable`: key -> its first row_id). Records without a key (failed, no parent, no InChI) are always kept.
 */
function deduplicate(
  chem: readonly RecordChem[],
  inTable: ReadonlyMap<string, number>,
): { kept: number[]; merged: Array<{ index: number; into: { row: number } | { kept: number } }> } {
  const kept: number[] = [];
  const merged: Array<{ index: number; into: { row: number } | { kept: number } }> = [];
  const first = new Map<string, number>();
  chem.forEach((c, i) => {
    const key = c.error === null ? c.key : null;
    if (key === null) {
      kept.push(i);
      return;
    }
    const row = inTable.get(key);
    if (row !== undefined) merged.push({ index: i, into: { row } });
    else if (first.has(key)) merged.push({ index: i, into: { kept: first.get(key)! } });
    else {
      first.set(key, i);
      kept.push(i);
    }
  });
  return { kept, merged };
}

/** The columns an imported table holds as the import's own (row_id, input or title, smiles, ...), not as data columns. */
function tableFixedOf(table: TableMeta): string[] {
  // Tables imported before the names were reserved per source: the names every import reserved then.
  return (table.provenance.fixed_columns as string[] | undefined) ?? table.columns.map((c) => c.name).filter((name) => IMPORT_COLUMN_NAMES.includes(name));
}

/** A setting of the call that must equal the table's on append (standardize, dedupe): the smiles column and the dedupe would mean two things. */
function sameAsTable(name: "standardize" | "dedupe", given: boolean, table: TableMeta): void {
  const made = table.provenance[name] === true;
  if (given === made) return;
  throw invalid(
    `table ${table.name} was imported ${made ? "with" : "without"} ${name}; an append must use the same (${name}: ${made})`,
    `/${name}`,
    { table: table.name, [name]: made },
    made
      ? `Send ${name}: true, as the table was made.`
      : name === "dedupe"
        ? "Import into a new table with dedupe: true (and standardize as you need), or append without dedupe."
        : "Import into a new table with standardize: true, or append without standardize.",
  );
}

export function createCanvasImportTool(canvases: () => CanvasManager = getCanvasManager): ServiceTool<Args, ImportResult> {
  return {
    kind: "service",
    toolset: "canvas",
    name: "canvas_import",
    ui: { resourceUri: TABLE_APP_URI },
    title: "Canvas: import molecules as a table",
    description: "Put a molecule set on a canvas as a SQL table: each row gets RDKit's canonical SMILES and its data columns; standardize and dedupe clean it.",
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
        title_column: {
          type: "string",
          maxLength: 63,
          pattern: "^[a-z][a-z0-9_]{0,62}$",
          default: DEFAULT_TITLE_COLUMN,
          description: "SDF title column.",
        },
        standardize: {
          type: "boolean",
          default: false,
          description: "smiles = the standardised parent (+ original_smiles, parent_inchikey).",
        },
        dedupe: {
          type: "boolean",
          default: false,
          description: "One row per parent InChIKey; duplicates counts the rest.",
        },
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
        counts: {
          ...obj("Records of this call, and rows of the whole table.", {
            rows: int("Records this call read."),
            parsed: int("Of them, with a canonical smiles."),
            failed: int("Of them, with an error."),
            duplicates: int("With dedupe: of them, merged into an earlier row (not written)."),
            table_rows: int("Rows the table holds now."),
          }),
          required: ["rows", "parsed", "failed", "table_rows"],
        },
        columns: arr("The table's columns, in order.", {
          ...obj("A column.", {
            name: str("Name."),
            type: str("DuckDB type."),
            role: { type: "string", enum: ["title"], description: "Present on the column holding the SDF record titles." },
          }),
          required: ["name", "type"],
        }),
        sample: arr("The first rows of this call (NULL cells left out).", { type: "object" }),
        failures: arr(
          "The first rows that did not parse (present only when some failed).",
          obj("A failed row.", { row_id: int("Its row_id."), input: str("Its input or title (clipped)."), error: str("Error code."), message: str("Why.") }),
        ),
        duplicate_examples: arr(
          "With dedupe, the first records merged into an earlier row (present only when some were).",
          obj("A merged record.", {
            record: int("Its position in this call's input, from 1."),
            input: str("Its input or title (clipped)."),
            row_id: int("The row it merged into (its duplicates counts it)."),
          }),
        ),
        renamed: {
          type: "object",
          additionalProperties: { type: "string" },
          description: "Data columns whose names clashed with a column the import writes or with each other, tag or header -> column (present only then).",
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
      const standardize = args.standardize === true;
      const dedupe = args.dedupe === true;
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
          sameAsTable("standardize", standardize, existing);
          sameAsTable("dedupe", dedupe, existing);
        }
        const { source, kind, path } = await readSource(args, manager);
        const sdf = kind === "sdf" || kind === "path:sdf" || kind === "path:sdf.gz";
        if (args.title_column !== undefined && !sdf)
          throw invalid(
            `title_column names the column of SDF record titles; this ${kind.replace(/^path:/, "")} source has none`,
            "/title_column",
            {},
            "Drop title_column (the molecule as given goes to input).",
          );
        const titleColumn = args.title_column ?? (existing?.provenance.title_column as string | undefined) ?? DEFAULT_TITLE_COLUMN;
        const shape = { sdf, titleColumn, hasId: source.hasId, standardize, dedupe };
        const fixed = importColumns(shape);
        const clash = fixed.filter((c) => c.name === titleColumn).length > 1;
        if (sdf && clash)
          throw invalid(
            `title_column ${titleColumn} is a column the import writes itself`,
            "/title_column",
            { written: fixed.map((c) => c.name) },
            `Name another column for the titles (default ${DEFAULT_TITLE_COLUMN}).`,
          );
        // On append, the title column is the table's title column or a new one, never a data or computed column of the table.
        const other = existing?.columns.find((c) => c.name.toLowerCase() === titleColumn.toLowerCase());
        if (sdf && existing && other && !tableFixedOf(existing).includes(other.name))
          throw invalid(
            `title_column ${titleColumn} is a data or computed column of table ${table}`,
            "/title_column",
            { columns: existing.columns.map((c) => c.name) },
            `Name another column for the titles (the table's titles are in ${(existing.provenance.title_column as string | undefined) ?? "no column yet"}).`,
          );
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
        // The row cap before any chemistry runs (the byte cap is checked when the rows are written; with dedupe the
        // rows written are known only after it, and the write checks them).
        if (!dedupe && before + n > manager.maxTableRows) throw manager.tooManyRows(table, before + n);
        const chem = await chemistry(source, ctx, { standardize, dedupe });

        // Dedupe: the keys the table holds already (append), then which records are written.
        const keys = dedupe && existing ? [...new Set(chem.flatMap((c) => (c.error === null && c.key !== null ? [c.key] : [])))] : [];
        const inTable = existing && keys.length > 0 ? await canvas!.firstRowsByKey(table, "parent_inchikey", "row_id", keys) : new Map<string, number>();
        const { kept, merged } = dedupe ? deduplicate(chem, inTable) : { kept: chem.map((_, i) => i), merged: [] };
        const rowOf = new Map(kept.map((i, k) => [i, before + k + 1]));
        const counts = new Map<number, number>();
        const increments = new Map<number, number>();
        for (const m of merged) {
          if ("row" in m.into) increments.set(m.into.row, (increments.get(m.into.row) ?? 0) + 1);
          else counts.set(m.into.kept, (counts.get(m.into.kept) ?? 0) + 1);
        }

        // Names: the data columns as given, renamed only on a clash with a column this import writes, with a column
        // the table already has as ours or computed by canvas_annotate (_row, mw, qed: their values would be overwritten),
        // or with each other.
        const previous = (existing?.provenance.renamed as Record<string, string> | undefined) ?? {};
        const tableFixed = existing ? tableFixedOf(existing) : [];
        const computed = existing && canvas ? [ROW_KEY_COLUMN, ...canvas.computedColumns(table)] : [];
        const { columns: names, renamed } = nameDataColumns(source.dataColumns, [...fixed.map((c) => c.name), ...tableFixed, ...computed], previous);
        const dataSpecs: ColumnSpec[] = source.dataColumns.map((raw) => ({
          name: names.get(raw)!,
          type: inferColumnType(source.records.map((r) => r.data?.[raw])),
          description: sdf ? `SDF data item ${raw}` : `CSV column ${raw}`,
        }));
        const columns = [...fixed, ...dataSpecs];
        const rows: CellValue[][] = kept.map((i) => {
          const r = source.records[i]!;
          const c = chem[i]!;
          const row: CellValue[] = [rowOf.get(i)!, sdf ? (r.title ?? null) : r.input, c.smiles];
          if (standardize) row.push(c.original);
          if (standardize || dedupe) row.push(c.error === null ? c.key : null);
          if (dedupe) row.push(c.error === null && c.key !== null ? (counts.get(i) ?? 0) : null);
          row.push(c.error);
          if (source.hasId) row.push(r.id ?? null);
          for (let k = 0; k < source.dataColumns.length; k++) row.push(toCell(dataSpecs[k]!.type as ColumnType, r.data?.[source.dataColumns[k]!]));
          return row;
        });
        const calls = ((existing?.provenance.calls as number | undefined) ?? 0) + 1;
        const sources = [...new Set([...((existing?.provenance.sources as string[] | undefined) ?? []), kind])];
        const provenance: Record<string, unknown> = {
          kind: "import",
          sources,
          calls,
          renamed: { ...previous, ...renamed },
          standardize,
          dedupe,
          fixed_columns: [...new Set([...tableFixed, ...fixed.map((c) => c.name)])],
        };
        if (sdf) provenance.title_column = titleColumn;
        if (path !== undefined) provenance.path = path;
        let meta: TableMeta;
        if (!canvas) {
          const made = await manager.stageOnNewCanvas(table, columns, rows, provenance, ctx.signal, ctx.owner ?? null);
          canvas = made.canvas;
          meta = made.table;
        } else if (mode === "append")
          meta = await canvas.appendRows(table, columns, rows, provenance, ctx.signal, {
            expectRows: before,
            ...(increments.size > 0 ? { increments: { column: "duplicates", key: "row_id", deltas: increments } } : {}),
          });
        else meta = await canvas.stage(table, columns, rows, provenance, ctx.signal);
        ctx.progress(n + 1, n + 1, "staged");

        const parsed = chem.filter((c) => c.error === null).length;
        const title = meta.provenance.title_column as string | undefined;
        const result: ImportResult = {
          canvas_id: canvas.id,
          table,
          mode,
          counts: { rows: n, parsed, failed: n - parsed, ...(dedupe ? { duplicates: merged.length } : {}), table_rows: meta.row_count },
          columns: meta.columns.map((c) => (c.name === title ? { name: c.name, type: c.type, role: "title" as const } : { name: c.name, type: c.type })),
          sample: rows.slice(0, SAMPLE_ROWS).map((row) => {
            const o: Record<string, CellValue> = {};
            columns.forEach((c, k) => {
              const v = row[k] ?? null;
              if (v !== null) o[c.name] = typeof v === "string" ? clipText(v, INPUT_CLIP) : v;
            });
            return o;
          }),
        };
        const failures = kept
          .filter((i) => chem[i]!.error !== null)
          .slice(0, FAILURES_SHOWN)
          .map((i) => ({
            row_id: rowOf.get(i)!,
            input: clipText(source.records[i]!.input, INPUT_CLIP),
            error: chem[i]!.error!,
            message: clipText(chem[i]!.message ?? "", 200),
          }));
        if (failures.length > 0) result.failures = failures;
        if (merged.length > 0)
          result.duplicate_examples = merged.slice(0, DUPLICATES_SHOWN).map((m) => ({
            record: m.index + 1,
            input: clipText(source.records[m.index]!.input, INPUT_CLIP),
            row_id: "row" in m.into ? m.into.row : rowOf.get(m.into.kept)!,
          }));
        if (Object.keys(renamed).length > 0) result.renamed = renamed;
        return result;
      };
      return canvas ? canvas.hold(work) : work();
    },
  };
}

export const canvasImportTool = createCanvasImportTool();

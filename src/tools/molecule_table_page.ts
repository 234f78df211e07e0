/**
 * The molecule table app's own tool (MCP Apps, visibility ["app"]): one page of a set's rows with a small SVG per
 * row drawn by the server, so the app never holds a whole table and ships no chemistry library. The set is a canvas
 * table, a canvas SELECT (wrapped as a subquery and read through the canvas's guarded query path, the same locks
 * as chembl_dataframe_query), or an inline list (depict's smiles_list). Column filters are built from quoted
 * identifiers and bound parameters, never from text spliced into the SQL.
 *
 * A substructure filter matches every distinct SMILES of the set once, in the worker pool (ChemRunner.runList, in
 * chunks), and keeps the matching SMILES per (canvas, source, column, query, the canvas's table shapes), so paging
 * a filtered 100,000-row table does not match again per page; the page's rows are drawn with the match highlighted.
 *
 * Its answers go to the app, not the model: the text block is a one-line summary, and a page's drawings stop at
 * SVG_BUDGET_BYTES so that the answer stays well under the server's 80,000-byte answer cap (a row past it has a null
 * drawing and the app says so).
 */
import { TABLE_APP_URI } from "../contract/apps.js";
import type { ChemRunner, ServiceContext, ServiceTool } from "../contract/tool.js";
import { drawSvg } from "../domain/chem/depict.js";
import { parseSmiles, withMol, withQuery } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import type { Canvas } from "../domain/canvas/canvas.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import type { QueryParam } from "../domain/canvas/queries.js";
import { MAX_SQL_LENGTH } from "../domain/canvas/sql-guard.js";
import { quoteIdent } from "../domain/canvas/tables.js";
import type { JsonValue } from "../domain/canvas/values.js";
import { CANVAS_READ_ANNOTATIONS, canvasFor, canvasIdProperty, defaultSmilesColumn } from "./canvas-common.js";
import { workerOnlyTool } from "./common.js";

const MAX_LIMIT = 25;
const DEFAULT_LIMIT = 10;
const MAX_LIST = 2_000;
const MAX_FILTERS = 16;
/**
 * A page's answer stops adding drawings here (rows included; a drawing is 3-20 KB): well under the server's
 * 80,000-byte answer cap. The rows past it answer a null drawing and `undrawn_from` says where the app asks again.
 */
const PAGE_BUDGET_BYTES = 70_000;
/** Distinct molecules a substructure filter matches at most (the canvas's larger tables are filtered by column first). */
const MAX_MATCH_MOLECULES = 500_000;
/** SMILES per worker item of a match (one RDKit query compiled per item). */
const MATCH_CHUNK = 250;
const DRAW_WIDTH = 180;
const DRAW_HEIGHT = 120;
const OPS = ["eq", "ne", "lt", "le", "gt", "ge", "contains", "is_null", "not_null"] as const;
type Op = (typeof OPS)[number];
const SQL_OP: Record<Exclude<Op, "contains" | "is_null" | "not_null">, string> = { eq: "=", ne: "<>", lt: "<", le: "<=", gt: ">", ge: ">=" };

interface Filter {
  column: string;
  op: Op;
  value?: string;
}

interface Args {
  canvas_id?: string;
  table?: string;
  sql?: string;
  smiles_list?: string[];
  titles?: string[];
  smiles_column?: string;
  offset?: number;
  limit?: number;
  order_by?: string;
  descending?: boolean;
  filters?: Filter[];
  substructure?: string;
}

interface Column {
  name: string;
  type: string;
}

interface PageResult extends Record<string, unknown> {
  source: "table" | "sql" | "list";
  canvas_id?: string;
  table?: string;
  smiles_column: string;
  columns: Column[];
  rows: JsonValue[][];
  svgs: Array<string | null>;
  undrawn_from?: number;
  total: number;
  offset: number;
  limit: number;
  order_by?: string;
  descending: boolean;
  substructure?: { query: string; molecules_matched: number; molecules_searched: number; cached: boolean };
  elapsed_ms: number;
}

// ---------------------------------------------------------------------------------------------------
// The worker side: matching a chunk of SMILES, drawing one row

type WorkItem =
  | { kind: "check"; query: string }
  | { kind: "match"; query: string; smiles: string[] }
  | { kind: "draw"; smiles: string; query?: string; width: number; height: number };

type WorkResult = { hits: number[] } | { svg: string };

/**
 * RDKit's SVG made smaller for a table cell: no XML prolog, comments, classes or background, styles cut to what is
 * drawn, coordinates to one decimal. About half the bytes; the picture is the same at this size.
 */
function compactSvg(svg: string): string {
  return svg
    .replace(/<\?xml[^>]*>\s*/, "")
    .replace(/<!--[^>]*-->\s*/g, "")
    .replace(/<svg[^>]*>/, (open) => {
      const w = /width='(\d+)px'/.exec(open)?.[1] ?? String(DRAW_WIDTH);
      const h = /height='(\d+)px'/.exec(open)?.[1] ?? String(DRAW_HEIGHT);
      return `<svg xmlns='http://www.w3.org/2000/svg' width='${w}' height='${h}' viewBox='0 0 ${w} ${h}'>`;
    })
    .replace(/<rect[^>]*>\s*(<\/rect>)?/, "")
    .replace(/ class='[^']*'/g, "")
    .replace(/style='([^']*)'/g, (_m, style: string) => {
      const kept = style
        .split(";")
        .filter((p) => /^(fill|stroke|stroke-width|fill-rule):/.test(p))
        .map((p) => p.replace(/stroke-width:([\d.]+)px/, "stroke-width:$1"));
      return `style='${kept.join(";")}'`;
    })
    .replace(/(\d+\.\d)\d+/g, "$1")
    .replace(/ d='M ([^']*)'/g, (_m, d: string) => ` d='M${d.replace(/ ([MLQCZ]) /g, "$1").replace(/ Z$/, "Z")}'`)
    .replace(/>\s+</g, "><");
}

function hasMatch(mol: { get_substruct_match(q: unknown): string }, query: unknown): boolean {
  return mol.get_substruct_match(query) !== "{}";
}

/** Worker-only: one step of molecule_table_page (a SMARTS checked, a chunk matched, a row drawn). */
export const moleculeTableWorkTool = workerOnlyTool<WorkItem, WorkResult>({
  toolset: "canvas",
  name: "molecule_table_work",
  title: "molecule_table_page: one step",
  description: "Worker-only: checks a substructure query, matches a chunk of SMILES against it, or draws one row.",
  errors: ["INVALID_SMILES", "INVALID_SMARTS", "MOLECULE_TOO_LARGE"],
  budgetMs: 55_000,
  run(item, { rdkit }) {
    if (item.kind === "check") return withQuery(rdkit, item.query, () => ({ hits: [] }), "substructure");
    if (item.kind === "match") {
      return withQuery(
        rdkit,
        item.query,
        (query) => {
          const hits: number[] = [];
          item.smiles.forEach((smiles, i) => {
            let mol;
            try {
              mol = parseSmiles(rdkit, smiles);
            } catch {
              return; // A SMILES that does not parse matches nothing.
            }
            try {
              if (hasMatch(mol, query)) hits.push(i);
            } finally {
              mol.delete();
            }
          });
          return { hits };
        },
        "substructure",
      );
    }
    return withMol(rdkit, item.smiles, (mol) => {
      const drawing = drawSvg(rdkit, mol, {
        width: item.width,
        height: item.height,
        highlightSmarts: item.query,
        drawOptions: { clearBackground: false },
      });
      return { svg: compactSvg(drawing.svg) };
    });
  },
});

// ---------------------------------------------------------------------------------------------------
// The main thread: the page

function invalid(message: string, path: string, hint: string, details: Record<string, unknown> = {}): ToolError {
  return new ToolError("INVALID_ARGUMENTS", message, { path, ...details }, hint);
}

function runner(ctx: ServiceContext): Required<ChemRunner> {
  const chem = ctx.chem;
  if (!chem?.runList) throw new Error("molecule_table_page needs the chemistry pool");
  return chem as Required<ChemRunner>;
}

/** The SMILES of `smiles` that match `query` (in the worker pool, in chunks). */
async function matchAll(ctx: ServiceContext, query: string, smiles: readonly string[]): Promise<Set<string>> {
  const chem = runner(ctx);
  const [checked] = await chem.runList(moleculeTableWorkTool, [{ kind: "check", query }]);
  if (checked && !checked.ok) throw ToolError.fromPayload(checked.error);
  const items: WorkItem[] = [];
  for (let i = 0; i < smiles.length; i += MATCH_CHUNK) items.push({ kind: "match", query, smiles: smiles.slice(i, i + MATCH_CHUNK) });
  const outcomes = await chem.runList(moleculeTableWorkTool, items);
  const matched = new Set<string>();
  outcomes.forEach((outcome, k) => {
    if (!outcome.ok) throw ToolError.fromPayload(outcome.error);
    for (const i of (outcome.value as { hits: number[] }).hits) matched.add(smiles[k * MATCH_CHUNK + i]!);
  });
  return matched;
}

/** The page's drawings, in row order, while the answer stays under PAGE_BUDGET_BYTES (a SMILES that does not parse: null). */
async function drawPage(
  ctx: ServiceContext,
  rows: JsonValue[][],
  smilesIndex: number,
  query: string | undefined,
): Promise<{ svgs: Array<string | null>; undrawnFrom?: number }> {
  const smiles = rows.map((r) => (typeof r[smilesIndex] === "string" ? r[smilesIndex] : null));
  const items = smiles.map((s) => ({ kind: "draw" as const, smiles: s ?? "", width: DRAW_WIDTH, height: DRAW_HEIGHT, ...(query ? { query } : {}) }));
  const outcomes = items.length > 0 ? await runner(ctx).runList(moleculeTableWorkTool, items) : [];
  let bytes = JSON.stringify(rows).length + 2_000;
  let undrawnFrom: number | undefined;
  const svgs = outcomes.map((o, i) => {
    if (undrawnFrom !== undefined || !o.ok || smiles[i] === null) return null;
    const svg = (o.value as { svg: string }).svg;
    bytes += svg.length + 8;
    if (bytes <= PAGE_BUDGET_BYTES || i === 0) return svg;
    undrawnFrom = i;
    return null;
  });
  return undrawnFrom === undefined ? { svgs } : { svgs, undrawnFrom };
}

/** Matched SMILES per (canvas, source, column, query, table shapes): a few recent filters, for paging. */
const matchCache = new Map<string, { matched: Set<string>; searched: number }>();
const MATCH_CACHE_ENTRIES = 8;

function canvasShape(canvas: Canvas): string {
  return [...canvas.tables.values()].map((t) => `${t.name}:${t.row_count}:${t.columns.length}`).join(",");
}

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|REAL|DECIMAL.*)$/;

function checkColumn(columns: readonly Column[], name: string, path: string): Column {
  const column = columns.find((c) => c.name === name);
  if (!column)
    throw invalid(`No column ${name} in this set`, path, `Use one of: ${columns.map((c) => c.name).join(", ")}.`, { columns: columns.map((c) => c.name) });
  return column;
}

/** A filter as SQL over quoted identifiers, its value bound as a parameter (`params` grows). */
function filterSql(f: Filter, column: Column, params: QueryParam[], path: string): string {
  const id = quoteIdent(column.name);
  if (f.op === "is_null") return `${id} IS NULL`;
  if (f.op === "not_null") return `${id} IS NOT NULL`;
  if (f.value === undefined) throw invalid(`Filter on ${column.name} (${f.op}) needs a value`, `${path}/value`, "Give value, or use is_null / not_null.");
  if (f.op === "contains") {
    params.push(String(f.value));
    return `contains(lower(CAST(${id} AS VARCHAR)), lower($${params.length}))`;
  }
  if (NUMERIC.test(column.type)) {
    const n = Number(f.value);
    if (f.value.trim() === "" || !Number.isFinite(n))
      throw invalid(`${column.name} is numeric; ${JSON.stringify(f.value)} is not a number`, `${path}/value`, "Give a number.");
    params.push(n);
    return `${id} ${SQL_OP[f.op]} $${params.length}`;
  }
  params.push(String(f.value));
  return `CAST(${id} AS VARCHAR) ${SQL_OP[f.op]} $${params.length}`;
}

async function canvasPage(args: Args, ctx: ServiceContext, canvases: () => CanvasManager, offset: number, limit: number): Promise<PageResult> {
  const started = Date.now();
  const canvas = await canvasFor(canvases(), args.canvas_id, ctx);
  if ((args.table === undefined) === (args.sql === undefined))
    throw invalid("Give canvas_id with either table or sql", "/table", "Name a table (chembl_dataframe_describe lists them) or one SELECT.");
  let base: string;
  if (args.table !== undefined) {
    if (!canvas.tables.has(args.table)) throw canvas.noTable(args.table);
    base = `SELECT * FROM ${quoteIdent(args.table)}`;
  } else {
    base = args.sql!.trim().replace(/;\s*$/, "");
  }
  const src = `(${base}) AS src`;
  const read = (sql: string, params: QueryParam[], maxRows: number, maxBytes = 4_000_000) =>
    // Only SQL this tool composes binds parameters: the first read (the columns) carries none, so the caller's own
    // SQL inside it goes through the guard's strict reading, where a `$` is refused.
    canvas.query(sql, { maxRows, maxBytes, ...(params.length > 0 ? { params } : {}), signal: ctx.signal });
  const columns = (await read(`SELECT * FROM ${src} LIMIT 0`, [], 1)).columns;
  const names = columns.map((c) => c.name);
  const smilesColumn =
    args.table !== undefined
      ? defaultSmilesColumn(canvas, args.table, args.smiles_column)
      : (args.smiles_column ?? (names.includes("smiles") || !names.includes("canonical_smiles") ? "smiles" : "canonical_smiles"));
  checkColumn(columns, smilesColumn, "/smiles_column");
  const params: QueryParam[] = [];
  const where = (args.filters ?? []).map((f, i) => filterSql(f, checkColumn(columns, f.column, `/filters/${i}/column`), params, `/filters/${i}`));
  let substructure: PageResult["substructure"];
  if (args.substructure !== undefined) {
    const key = [canvas.id, base, smilesColumn, args.substructure, canvasShape(canvas)].join("\u0000");
    let entry = matchCache.get(key);
    const cached = entry !== undefined;
    if (!entry) {
      const id = quoteIdent(smilesColumn);
      const distinct = await read(`SELECT DISTINCT ${id} AS s FROM ${src} WHERE ${id} IS NOT NULL`, [], MAX_MATCH_MOLECULES, 256_000_000);
      if (distinct.truncated)
        throw invalid(
          `The set holds more than ${MAX_MATCH_MOLECULES} distinct molecules to match`,
          "/substructure",
          "Filter by a column first (or query a smaller set), then match.",
        );
      const smiles = distinct.rows.map((r) => String(r.s));
      entry = { matched: await matchAll(ctx, args.substructure, smiles), searched: smiles.length };
      matchCache.set(key, entry);
      while (matchCache.size > MATCH_CACHE_ENTRIES) matchCache.delete(matchCache.keys().next().value!);
    } else {
      // Most recently used last.
      matchCache.delete(key);
      matchCache.set(key, entry);
    }
    params.push([...entry.matched]);
    where.push(`${quoteIdent(smilesColumn)} IN (SELECT unnest($${params.length}::VARCHAR[]))`);
    substructure = { query: args.substructure, molecules_matched: entry.matched.size, molecules_searched: entry.searched, cached };
  }
  const whereSql = where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "";
  const counted = await read(`SELECT count(*) AS n FROM ${src}${whereSql}`, params, 1);
  const total = Number(counted.rows[0]?.n ?? 0);
  const order: string[] = [];
  if (args.order_by !== undefined) {
    checkColumn(columns, args.order_by, "/order_by");
    order.push(`${quoteIdent(args.order_by)} ${args.descending ? "DESC" : "ASC"} NULLS LAST`);
  }
  if (names.includes("_row") && args.order_by !== "_row") order.push(`"_row"`);
  const page = await read(
    `SELECT * FROM ${src}${whereSql}${order.length > 0 ? ` ORDER BY ${order.join(", ")}` : ""} LIMIT ${limit} OFFSET ${offset}`,
    params,
    limit,
  );
  const rows = page.rows.map((r) => names.map((n) => r[n] ?? null));
  const drawn = await drawPage(ctx, rows, names.indexOf(smilesColumn), args.substructure);
  return {
    source: args.table !== undefined ? "table" : "sql",
    canvas_id: canvas.id,
    ...(args.table !== undefined ? { table: args.table } : {}),
    smiles_column: smilesColumn,
    columns,
    rows,
    svgs: drawn.svgs,
    ...(drawn.undrawnFrom !== undefined ? { undrawn_from: drawn.undrawnFrom } : {}),
    total,
    offset,
    limit,
    ...(args.order_by !== undefined ? { order_by: args.order_by } : {}),
    descending: args.descending === true,
    ...(substructure ? { substructure } : {}),
    elapsed_ms: Date.now() - started,
  };
}

function compare(a: JsonValue, b: JsonValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

function listFilter(f: Filter, value: JsonValue, numeric: boolean): boolean {
  if (f.op === "is_null") return value === null;
  if (f.op === "not_null") return value !== null;
  if (value === null || f.value === undefined) return false;
  if (f.op === "contains") return String(value).toLowerCase().includes(String(f.value).toLowerCase());
  const c = numeric ? Number(value) - Number(f.value) : String(value).localeCompare(String(f.value));
  return { eq: c === 0, ne: c !== 0, lt: c < 0, le: c <= 0, gt: c > 0, ge: c >= 0 }[f.op];
}

async function listPage(args: Args, ctx: ServiceContext, offset: number, limit: number): Promise<PageResult> {
  const started = Date.now();
  const list = args.smiles_list!;
  if (list.length > MAX_LIST)
    throw invalid(`smiles_list holds ${list.length} entries; at most ${MAX_LIST}`, "/smiles_list", "Stage the set on a canvas (canvas_import) and page that.");
  const columns: Column[] = [
    { name: "index", type: "BIGINT" },
    { name: "title", type: "VARCHAR" },
    { name: "smiles", type: "VARCHAR" },
  ];
  let rows: JsonValue[][] = list.map((s, i) => [i, args.titles?.[i] ?? null, s]);
  (args.filters ?? []).forEach((f, i) => {
    const k = columns.indexOf(checkColumn(columns, f.column, `/filters/${i}/column`));
    rows = rows.filter((r) => listFilter(f, r[k]!, k === 0));
  });
  let substructure: PageResult["substructure"];
  if (args.substructure !== undefined) {
    const distinct = [...new Set(rows.map((r) => r[2] as string))];
    const matched = await matchAll(ctx, args.substructure, distinct);
    rows = rows.filter((r) => matched.has(r[2] as string));
    substructure = { query: args.substructure, molecules_matched: matched.size, molecules_searched: distinct.length, cached: false };
  }
  if (args.order_by !== undefined) {
    const k = columns.indexOf(checkColumn(columns, args.order_by, "/order_by"));
    const sign = args.descending ? -1 : 1;
    rows.sort((a, b) => (a[k] === null || b[k] === null ? compare(a[k]!, b[k]!) : sign * compare(a[k]!, b[k]!)) || compare(a[0]!, b[0]!));
  }
  const page = rows.slice(offset, offset + limit);
  const drawn = await drawPage(ctx, page, 2, args.substructure);
  return {
    source: "list",
    smiles_column: "smiles",
    columns,
    rows: page,
    svgs: drawn.svgs,
    ...(drawn.undrawnFrom !== undefined ? { undrawn_from: drawn.undrawnFrom } : {}),
    total: rows.length,
    offset,
    limit,
    ...(args.order_by !== undefined ? { order_by: args.order_by } : {}),
    descending: args.descending === true,
    ...(substructure ? { substructure } : {}),
    elapsed_ms: Date.now() - started,
  };
}

function summary(r: PageResult): string {
  const where = r.source === "list" ? "an inline list" : `canvas ${r.canvas_id}${r.table !== undefined ? `, table ${r.table}` : ", a query"}`;
  const shown = r.rows.length > 0 ? `rows ${r.offset + 1}-${r.offset + r.rows.length} of ${r.total}` : `no rows (of ${r.total})`;
  const order = r.order_by !== undefined ? `, by ${r.order_by}${r.descending ? " desc" : ""}` : "";
  const sub = r.substructure ? `, substructure ${r.substructure.query}: ${r.substructure.molecules_matched} molecules match` : "";
  return `molecule_table_page: ${shown} from ${where}${order}${sub}, ${r.svgs.filter((s) => s !== null).length} drawn (for the table app).`;
}

const str = (description: string, maxLength = 63) => ({ type: "string", minLength: 1, maxLength, description });

function createMoleculeTablePageTool(canvases: () => CanvasManager = getCanvasManager): ServiceTool<Args, PageResult> {
  return {
    kind: "service",
    toolset: "canvas",
    alsoIn: ["chem", "medchem"],
    name: "molecule_table_page",
    title: "Molecule table: one page",
    description:
      "For the molecule table app: one page of a canvas table, a canvas SELECT or an inline list, sorted and filtered, with a small SVG drawing per row (the substructure highlighted).",
    annotations: CANVAS_READ_ANNOTATIONS,
    ui: { resourceUri: TABLE_APP_URI, visibility: ["app"] },
    inputSchema: {
      type: "object",
      properties: {
        canvas_id: canvasIdProperty(),
        table: str("A table of the canvas."),
        sql: str("Or one SELECT over the canvas (read as a subquery).", MAX_SQL_LENGTH),
        smiles_list: { type: "array", items: { type: "string", maxLength: 5_000 }, maxItems: MAX_LIST, description: "Or an inline list of SMILES." },
        titles: { type: "array", items: { type: "string", maxLength: 200 }, maxItems: MAX_LIST, description: "Titles of smiles_list's entries." },
        smiles_column: str("The SMILES column (default smiles, or canonical_smiles)."),
        offset: { type: "integer", minimum: 0, maximum: 100_000_000, description: "Rows skipped (default 0)." },
        limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: `Rows in the page (default ${DEFAULT_LIMIT}).` },
        order_by: str("Column to sort by.", 200),
        descending: { type: "boolean", description: "Sort descending." },
        filters: {
          type: "array",
          maxItems: MAX_FILTERS,
          description: "Column filters, all applied.",
          items: {
            type: "object",
            properties: {
              column: str("Column.", 200),
              op: { type: "string", enum: [...OPS], description: "Comparison." },
              value: { type: "string", maxLength: 1_000, description: "Value compared with (a number for a numeric column; not for is_null / not_null)." },
            },
            required: ["column", "op"],
            additionalProperties: false,
          },
        },
        substructure: str("SMARTS (or SMILES) the rows must contain; highlighted in the drawings.", 1_000),
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        source: { type: "string", enum: ["table", "sql", "list"] },
        canvas_id: { type: "string" },
        table: { type: "string" },
        smiles_column: { type: "string" },
        columns: { type: "array", items: { type: "object", properties: { name: { type: "string" }, type: { type: "string" } }, required: ["name", "type"] } },
        rows: { type: "array", items: { type: "array" }, description: "The page's rows as arrays, in columns' order." },
        svgs: {
          type: "array",
          items: { type: ["string", "null"] },
          description: "A drawing per row (null: not drawn, the SMILES did not parse or the page's drawing budget was spent).",
        },
        undrawn_from: {
          type: "integer",
          minimum: 1,
          description: "The page's first row left undrawn to keep the answer small: ask again from offset + undrawn_from.",
        },
        total: { type: "integer", minimum: 0, description: "Rows that pass the filters." },
        offset: { type: "integer", minimum: 0 },
        limit: { type: "integer", minimum: 1 },
        order_by: { type: "string" },
        descending: { type: "boolean" },
        substructure: {
          type: "object",
          properties: {
            query: { type: "string" },
            molecules_matched: { type: "integer", minimum: 0 },
            molecules_searched: { type: "integer", minimum: 0 },
            cached: { type: "boolean", description: "Whether the match set came from an earlier page's call." },
          },
          required: ["query", "molecules_matched", "molecules_searched", "cached"],
        },
        elapsed_ms: { type: "integer", minimum: 0 },
      },
      required: ["source", "smiles_column", "columns", "rows", "svgs", "total", "offset", "limit", "descending", "elapsed_ms"],
      additionalProperties: false,
    },
    errors: ["CANVAS_DISABLED", "CANVAS_NOT_FOUND", "QUERY_REFUSED", "QUERY_TIMEOUT", "QUEUE_TIMEOUT", "INVALID_SMARTS"],
    budgetMs: 55_000,
    content: (result) => [{ type: "text", text: summary(result as PageResult) }],
    async run(args, ctx) {
      const offset = args.offset ?? 0;
      const limit = args.limit ?? DEFAULT_LIMIT;
      if (args.smiles_list !== undefined) {
        if (args.canvas_id !== undefined) throw invalid("Give smiles_list or canvas_id, not both", "/smiles_list", "Page one set per call.");
        return listPage(args, ctx, offset, limit);
      }
      if (args.canvas_id === undefined) throw invalid("Give canvas_id (with table or sql) or smiles_list", "/canvas_id", "Name the set the table shows.");
      return canvasPage(args, ctx, canvases, offset, limit);
    },
  };
}

export const moleculeTablePageTool = createMoleculeTablePageTool();

/**
 * Answers a host passes on: neither surface of a tool result (the content text, the structured result) over
 * MAX_ANSWER_BYTES. Hosts cut or refuse larger results (Claude Code refuses a tool result over 25,000 tokens by
 * default, MAX_MCP_OUTPUT_TOKENS), and a set pasted into the context is a set the agent cannot work with anyway.
 *
 * An answer over the bound has its largest row list (a list answer's results, clusters, pairs, products, rows)
 * staged whole as a table on a canvas owned by the caller (app.ts keeps one per caller for these), when the server offers the canvas: the answer
 * keeps the first rows that fit and says under `overflow` how many rows there are, the canvas_id and table, and
 * the columns. Without the canvas the list is cut to what fits and `overflow` says where the rest starts (a list
 * answer also sets summary.returned and next_index, so the same call from that index gets the rest).
 *
 * Rows become table rows as a person would query them: each entry's scalar fields are columns, a `result` object
 * (a list answer's entry) gives its keys as columns, another object its keys prefixed by its name (error_code),
 * and a nested list or object the JSON text of it.
 */
import type { JsonSchema } from "../contract/tool.js";
import { MAX_ANSWER_BYTES } from "../contract/limits.js";

export { MAX_ANSWER_BYTES };

/** Room kept under the bound for the overflow note and the rest of the answer's own keys. */
const NOTE_RESERVE_BYTES = 2_048;

export type Cell = string | number | boolean | null;

export interface StagedColumn {
  name: string;
  type: "BIGINT" | "DOUBLE" | "VARCHAR" | "BOOLEAN";
  description: string;
}

/** Stages rows on a new canvas owned by `owner`; the server's host (app.ts) wires it to the canvas manager. */
export type RowStager = (request: {
  table: string;
  columns: StagedColumn[];
  rows: Cell[][];
  provenance: Record<string, unknown>;
  owner: string | undefined;
  signal: AbortSignal;
}) => Promise<{ canvasId: string; table: string }>;

interface Overflow {
  key: string;
  rows: number;
  returned: number;
  canvas_id?: string;
  table?: string;
  columns?: string[];
  next_index?: number;
  note: string;
}

const bytes = (value: unknown) => Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value), "utf8");

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The answer's largest top-level list of entries, by JSON bytes: what is staged or cut. */
function largestList(value: Record<string, unknown>): { key: string; items: unknown[] } | undefined {
  let best: { key: string; items: unknown[]; size: number } | undefined;
  for (const [key, v] of Object.entries(value)) {
    if (!Array.isArray(v) || v.length < 2) continue;
    const size = bytes(v);
    if (!best || size > best.size) best = { key, items: v, size };
  }
  return best && { key: best.key, items: best.items };
}

/** One entry as table cells by column name (see the module comment). */
function flatten(item: unknown): Map<string, Cell> {
  const out = new Map<string, Cell>();
  const put = (name: string, v: unknown) => {
    if (v === undefined) return;
    out.set(name, v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : JSON.stringify(v));
  };
  if (!isPlainObject(item)) {
    put("value", item);
    return out;
  }
  for (const [key, v] of Object.entries(item)) {
    if (isPlainObject(v)) for (const [inner, w] of Object.entries(v)) put(key === "result" ? inner : `${key}_${inner}`, w);
    else put(key, v);
  }
  return out;
}

/** The DuckDB type a column's values fit: BIGINT for whole numbers, DOUBLE for numbers, BOOLEAN, else VARCHAR. */
function columnType(values: Cell[]): StagedColumn["type"] {
  const present = values.filter((v) => v !== null);
  if (present.length === 0) return "VARCHAR";
  if (present.every((v) => typeof v === "boolean")) return "BOOLEAN";
  if (present.every((v) => typeof v === "number")) return present.every((v) => Number.isSafeInteger(v)) ? "BIGINT" : "DOUBLE";
  return "VARCHAR";
}

/** The entries as a table: columns in first-seen order, typed by their values; mixed values as text. */
export function entriesAsTable(items: readonly unknown[]): { columns: StagedColumn[]; rows: Cell[][] } {
  const flat = items.map(flatten);
  const names: string[] = [];
  const seen = new Set<string>();
  for (const row of flat) {
    for (const name of row.keys()) {
      if (seen.has(name)) continue;
      seen.add(name);
      names.push(name);
    }
  }
  const columns = names.map((name) => {
    const type = columnType(flat.map((r) => r.get(name) ?? null));
    return { name, type, description: `The entries' ${name}.` };
  });
  const rows = flat.map((r) =>
    columns.map((c) => {
      const v = r.get(c.name) ?? null;
      return c.type === "VARCHAR" && v !== null && typeof v !== "string" ? JSON.stringify(v) : v;
    }),
  );
  return { columns, rows };
}

/** How many leading entries fit when the rest of the answer takes `rest` bytes of the bound. */
function fitting(items: readonly unknown[], rest: number): number {
  let used = rest + NOTE_RESERVE_BYTES;
  let n = 0;
  for (const item of items) {
    const size = bytes(item) + 1;
    if (used + size > MAX_ANSWER_BYTES) break;
    used += size;
    n++;
  }
  return n;
}

/** A table name for the staged list: the tool and the key, as canvas table names go (lower case, at most 63). */
function tableName(tool: string, key: string): string {
  return `${tool}_${key}`
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, "_")
    .slice(0, 63);
}

export interface CapContext {
  tool: string;
  /** The text block's bytes for an answer, when it is not the answer's JSON (a markdown rendering). */
  textBytes?: (value: Record<string, unknown>) => number;
  stage?: RowStager | undefined;
  /** A list call's entries as sent: a staged list answer gets them as its `input` column, so the table names its molecules. */
  inputs?: readonly unknown[] | undefined;
  owner?: string | undefined;
  signal: AbortSignal;
}

/**
 * The answer as a host can take it: unchanged when both surfaces fit, else with its largest list staged or cut
 * (see the module comment). An answer over the bound with no list to stage is returned as it is (the
 * transport's own response limit still applies).
 */
export async function capAnswer(value: Record<string, unknown>, ctx: CapContext): Promise<Record<string, unknown>> {
  const structured = bytes(value);
  const text = ctx.textBytes ? ctx.textBytes(value) : structured;
  if (structured <= MAX_ANSWER_BYTES && text <= MAX_ANSWER_BYTES) return value;
  const list = largestList(value);
  if (!list) return value;
  const { key, items } = list;
  const rest = bytes({ ...value, [key]: [] });
  // When the answer is heavy without its list (one large string), dropping entries cannot help.
  if (rest + NOTE_RESERVE_BYTES > MAX_ANSWER_BYTES) return value;
  const listAnswer = key === "results" && isPlainObject(value.summary);
  // Where the whole list went: a canvas table, or nowhere (then why).
  let staged: { canvasId: string; table: string; columns: string[] } | undefined;
  let why = "the canvas is not offered by this server";
  if (ctx.stage) {
    try {
      const inputs = listAnswer ? ctx.inputs : undefined;
      const { columns, rows } = entriesAsTable(
        inputs
          ? items.map((item) =>
              isPlainObject(item) && typeof item.index === "number" && !("input" in item) ? { index: item.index, input: inputs[item.index], ...item } : item,
            )
          : items,
      );
      const done = await ctx.stage({
        table: tableName(ctx.tool, key),
        columns,
        rows,
        provenance: { tool: ctx.tool, key, reason: `the answer passed ${MAX_ANSWER_BYTES} bytes` },
        owner: ctx.owner,
        signal: ctx.signal,
      });
      staged = { ...done, columns: columns.map((c) => c.name) };
    } catch (e) {
      // A full canvas, a caller at its quota, DuckDB missing: the answer is cut instead, saying why.
      why = e instanceof Error ? e.message : String(e);
    }
  }
  const overflowOf = (n: number): Overflow =>
    staged
      ? {
          key,
          rows: items.length,
          returned: n,
          canvas_id: staged.canvasId,
          table: staged.table,
          columns: staged.columns,
          note:
            `All ${items.length} entries of ${key} are staged as table ${staged.table} on canvas ${staged.canvasId} (the answer would pass ${MAX_ANSWER_BYTES} bytes); ` +
            `the first ${n} are shown. Read, filter or rank them with chembl_dataframe_query, or draw them with depict (canvas_id + sql).`,
        }
      : {
          key,
          rows: items.length,
          returned: n,
          next_index: n,
          note:
            `Only the first ${n} of ${items.length} entries of ${key} are shown: the answer would pass ${MAX_ANSWER_BYTES} bytes and could not be staged (${why}). ` +
            (listAnswer
              ? `Send the entries from index ${n} on to get the rest, or fewer keys with fields.`
              : "Ask for fewer entries (a limit, top_k or a smaller set) to see the rest."),
        };
  const build = (n: number): Record<string, unknown> => {
    const overflow = overflowOf(n);
    const out: Record<string, unknown> = { ...value, [key]: items.slice(0, n), overflow };
    if (listAnswer && !staged) {
      out.summary = { ...(value.summary as Record<string, unknown>), returned: n, next_index: n };
      out.note = overflow.note;
    }
    return out;
  };
  // A first estimate from the JSON sizes (scaled when a text rendering is heavier), then shrunk until both
  // surfaces really fit: entries are not of even weight.
  let keep = Math.floor(fitting(items, rest) / Math.max(1, text / structured));
  let out = build(keep);
  while (keep > 0 && (bytes(out) > MAX_ANSWER_BYTES || (ctx.textBytes ? ctx.textBytes(out) : 0) > MAX_ANSWER_BYTES)) {
    keep = Math.floor(keep * 0.8);
    out = build(keep);
  }
  return out;
}

/** The output-schema property describing `overflow`, added to every tool's answer schema by the registry. */
const OVERFLOW_SCHEMA: JsonSchema = {
  type: "object",
  description: `Present when the answer would pass ${MAX_ANSWER_BYTES} bytes: the list named by key was staged on a canvas (canvas_id, table, columns) or cut (next_index); only returned entries are shown.`,
  properties: {
    key: { type: "string" },
    rows: { type: "integer", minimum: 0 },
    returned: { type: "integer", minimum: 0 },
    canvas_id: { type: "string" },
    table: { type: "string" },
    columns: { type: "array", items: { type: "string" } },
    next_index: { type: "integer", minimum: 0 },
    note: { type: "string" },
  },
  required: ["key", "rows", "returned", "note"],
  additionalProperties: false,
};

/** The schema with `overflow` allowed wherever an answer object is described (each branch of a choice, the $defs result). */
export function withOverflowProperty(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (isPlainObject(schema.properties) && !("overflow" in schema.properties)) out.properties = { ...schema.properties, overflow: OVERFLOW_SCHEMA };
  for (const k of ["anyOf", "oneOf"] as const)
    if (Array.isArray(schema[k])) out[k] = (schema[k] as JsonSchema[]).map((b) => (isPlainObject(b) ? withOverflowProperty(b) : b));
  if (isPlainObject(schema.$defs) && isPlainObject(schema.$defs.result)) out.$defs = { ...schema.$defs, result: withOverflowProperty(schema.$defs.result) };
  return out;
}

/**
 * Values a query would build past what one step may hold, found on DuckDB's own parse tree (json_serialize_sql)
 * before the query runs. DuckDB's memory_limit covers its buffer manager, not the strings and lists a function
 * builds in one call: `repeat(repeat('x', 100000000), 30)` took the process from 294 MB to 5,003 MB before the
 * timeout ended it. A call is interrupted only between vectors (2,048 rows), so a single call, or a vector of them,
 * that builds gigabytes cannot be stopped once started: such calls are refused here; growth spread over many steps
 * (string_agg, list, recursive CTEs) is left to the resident-memory watchdog of Canvas.query.
 *
 * Each expression gets an upper estimate of the bytes of its value: a constant its own size, a column reference
 * COLUMN_VALUE_BYTES (staged SMILES, names and molblocks are well under it), repeat(s, n) n times s, lpad/rpad(s, n,
 * p) n characters (4 bytes each at most), printf/format the widths its constant pattern names, range/generate_series
 * as a list 8 bytes an element, list_resize/array_resize n elements, replace/regexp_replace (global) the string times
 * its replacement, || and concat the sum of their parts, anything else the largest of its arguments. A value
 * estimated over MAX_BUILT_VALUE_BYTES is refused: a vector of such values is then at most 2,048 x 64 KiB = 128 MiB.
 */
import { ToolError } from "../errors.js";

/** The largest value one expression may build (64 KiB), by the estimate above. */
const MAX_BUILT_VALUE_BYTES = 64 * 1024;
/** A column's value in the estimate: no canvas column a chemist stages holds more in one cell. */
const COLUMN_VALUE_BYTES = 4 * 1024;
/** Bytes of a list element in the estimate (a BIGINT). */
const LIST_ELEMENT_BYTES = 8;

interface AstNode {
  class?: string;
  type?: string;
  function_name?: string;
  children?: AstNode[];
  value?: { is_null?: boolean; value?: unknown };
  [key: string]: unknown;
}

/** A refused call: which function, and the bytes its value would hold by the estimate. */
export interface Growth {
  function: string;
  estimated_bytes: number;
}

function constantOf(node: AstNode | undefined): unknown {
  if (node?.class !== "CONSTANT" || node.value?.is_null) return undefined;
  return node.value?.value;
}

function numberOf(node: AstNode | undefined): number | undefined {
  const v = constantOf(node);
  if (typeof v === "number") return v;
  if (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  // A cast of a constant (1000000::BIGINT) or a negation keeps its number.
  if (node?.class === "CAST") return numberOf((node as { child?: AstNode }).child);
  return undefined;
}

/** The widest field a printf or format pattern asks for: %1000000d, %.500s, {:>100}, {:100.5f}. */
function patternWidth(pattern: unknown): number {
  if (typeof pattern !== "string") return 0;
  let widest = 0;
  for (const m of pattern.matchAll(/%[-+ #0]*(\d+)?(?:\.(\d+))?[a-zA-Z]/g)) widest = Math.max(widest, Number(m[1] ?? 0), Number(m[2] ?? 0));
  for (const m of pattern.matchAll(/\{[^}]*:[^}\d]*(\d+)?(?:\.(\d+))?[^}]*\}/g)) widest = Math.max(widest, Number(m[1] ?? 0), Number(m[2] ?? 0));
  return widest;
}

/**
 * The estimated bytes of `node`'s value, recording in `found` the first function call estimated over the bound.
 * Unknown shapes (subqueries, star, parameters) count as a column value.
 */
function estimate(node: AstNode, found: Growth[]): number {
  const kids = node.children ?? [];
  const own = (): number => {
    switch (node.class) {
      case "CONSTANT": {
        const v = constantOf(node);
        return typeof v === "string" ? Buffer.byteLength(v) : 16;
      }
      case "COLUMN_REF":
        return COLUMN_VALUE_BYTES;
      case "FUNCTION":
        break;
      default: {
        // Casts, operators, CASE, comparisons: the largest part they hold.
        let most = 0;
        for (const child of childNodes(node)) most = Math.max(most, estimate(child, found));
        return Math.max(most, 16);
      }
    }
    const sizes = kids.map((k) => estimate(k, found));
    const name = (node.function_name ?? "").toLowerCase();
    const n = (i: number) => Math.max(0, numberOf(kids[i]) ?? (kids[i] ? COLUMN_VALUE_BYTES : 0));
    switch (name) {
      case "repeat":
        return (sizes[0] ?? 0) * n(1);
      case "lpad":
      case "rpad":
        return Math.max(sizes[0] ?? 0, n(1) * 4);
      case "printf":
      case "format":
        return sizes.reduce((a, b) => a + b, 0) + patternWidth(constantOf(kids[0])) * 4;
      case "range":
      case "generate_series": {
        const [a, b, step] = [numberOf(kids[0]), numberOf(kids[1]), numberOf(kids[2])];
        const count = kids.length === 1 ? (a ?? COLUMN_VALUE_BYTES) : b !== undefined && a !== undefined ? (b - a) / Math.abs(step || 1) : COLUMN_VALUE_BYTES;
        return Math.max(0, count) * LIST_ELEMENT_BYTES;
      }
      case "list_resize":
      case "array_resize":
        return n(1) * LIST_ELEMENT_BYTES;
      case "replace":
        return (sizes[0] ?? 0) * Math.max(1, sizes[2] ?? 1);
      case "regexp_replace": {
        const global = typeof constantOf(kids[3]) === "string" && String(constantOf(kids[3])).includes("g");
        return global ? (sizes[0] ?? 0) * Math.max(1, sizes[2] ?? 1) : (sizes[0] ?? 0) + (sizes[2] ?? 0);
      }
      case "||":
      case "concat":
      case "concat_ws":
      case "list_concat":
      case "array_concat":
        return sizes.reduce((a, b) => a + b, 0);
      default:
        return Math.max(16, ...sizes);
    }
  };
  const bytes = own();
  if (node.class === "FUNCTION" && bytes > MAX_BUILT_VALUE_BYTES && found.length === 0)
    found.push({ function: node.function_name ?? "?", estimated_bytes: Math.round(bytes) });
  return bytes;
}

/** The expression nodes directly under `node` (children, child, left/right, case checks...). */
function childNodes(node: AstNode): AstNode[] {
  const out: AstNode[] = [];
  for (const [key, v] of Object.entries(node)) {
    if (key === "value") continue;
    if (Array.isArray(v)) for (const item of v) if (isExpression(item)) out.push(item);
    if (isExpression(v)) out.push(v);
    if (v && typeof v === "object" && !Array.isArray(v) && !isExpression(v)) for (const inner of Object.values(v)) if (isExpression(inner)) out.push(inner);
  }
  return out;
}

function isExpression(v: unknown): v is AstNode {
  return v !== null && typeof v === "object" && typeof (v as AstNode).class === "string";
}

/**
 * The first call in a query's parse tree (json_serialize_sql's output) whose value would pass MAX_BUILT_VALUE_BYTES,
 * or undefined. Every expression anywhere in the tree (select lists, WHERE, CTEs, subqueries, table-function
 * arguments) is looked at.
 */
export function findValueGrowth(tree: unknown): Growth | undefined {
  const found: Growth[] = [];
  const visit = (v: unknown, inExpression: boolean): void => {
    if (found.length > 0 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const item of v) visit(item, inExpression);
      return;
    }
    if (isExpression(v) && !inExpression) {
      estimate(v, found);
      // Subqueries inside an expression are statements of their own: visit them too.
      for (const inner of Object.values(v)) visit(inner, true);
      return;
    }
    // A table function (FROM range(1000000)) streams its rows: only its arguments are values.
    if ((v as { type?: string }).type === "TABLE_FUNCTION") {
      const call = (v as { function?: AstNode }).function;
      for (const arg of call?.children ?? []) visit(arg, false);
      for (const [key, inner] of Object.entries(v)) if (key !== "function") visit(inner, false);
      return;
    }
    for (const [key, inner] of Object.entries(v)) {
      if (key === "value" && isExpression(v)) continue;
      // A SELECT node inside an expression (a subquery) starts afresh.
      const node = inner as { type?: string } | null;
      visit(inner, inExpression && !(node && typeof node === "object" && typeof node.type === "string" && node.type.endsWith("_NODE")));
    }
  };
  visit(tree, false);
  return found[0];
}

/** QUERY_REFUSED (memory_limit) for a call found by findValueGrowth. */
export function valueGrowthRefusal(growth: Growth): ToolError {
  return new ToolError(
    "QUERY_REFUSED",
    `${growth.function}() would build a value of about ${growth.estimated_bytes} bytes; one expression may build at most ${MAX_BUILT_VALUE_BYTES} (64 KiB)`,
    { reason: "memory_limit", function: growth.function, estimated_bytes: growth.estimated_bytes, max_value_bytes: MAX_BUILT_VALUE_BYTES },
    "Build smaller values (a shorter repeat, pad or format width, a narrower range): the canvas holds chemistry tables, not generated text.",
  );
}

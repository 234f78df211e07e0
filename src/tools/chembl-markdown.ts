/**
 * The markdown twin of a ChEMBL answer (the text content block). Upstream strings render inert: a
 * compound name or an assay description cannot open a heading, a list, a link, an image, emphasis, code
 * or HTML. Every upstream string is written on a line this module starts (never at a line start), with
 * line breaks and control characters collapsed and markdown punctuation (with '<', the only character that
 * opens HTML or an autolink) backslash-escaped; structures (SMILES) go verbatim into code spans. A declared
 * record (domain/chembl/records/) gives its markdown columns or lines, and how each field shows, from its declaration.
 */
import type { Field, RecordDecl, RecordOf } from "../domain/chembl/records/record.js";

/** Markdown punctuation that can open inline syntax (emphasis, code, links, tables, math, entities). */
const ESCAPED = /[\\`*_[\]|~$&<]/g;
// eslint-disable-next-line no-control-regex
const BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * One upstream string as inert inline markdown: line breaks and control characters collapse to a space
 * (so nothing can start a block) and markdown punctuation is backslash-escaped, '<' too (no HTML, no autolink).
 * '>' stays as written (an arrow such as '->' or a reaction's '>>' reads as itself, where '&gt;' would cost an
 * agent tokens and a wrong copy): without '<' it opens no tag, and it quotes only at a line start, where no
 * upstream text is written. Parentheses, '!' and '#' stay too: with '[' escaped and no upstream text at a line
 * start they cannot open a link, an image or a heading.
 */
export function mdInline(text: string): string {
  return text.replace(BREAKS, " ").replace(ESCAPED, (c) => `\\${c}`);
}

/**
 * A string shown verbatim in a code span (SMILES, InChIKeys): nothing inside a code span is markdown or
 * HTML, so only line breaks need removing; the fence is longer than any backtick run inside.
 */
export function mdCode(text: string): string {
  const clean = text.replace(BREAKS, " ");
  const longest = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = clean.startsWith("`") || clean.endsWith("`") || clean.startsWith(" ") ? " " : "";
  return `${fence}${pad}${clean}${pad}${fence}`;
}

type Scalar = string | number | boolean | null;
/** A field value: a scalar, or text to show verbatim in a code span. */
export type FieldValue = Scalar | { code: string | null };

/** A value as markdown: upstream strings escaped, code verbatim in a span, numbers and flags as written, null as "null". */
export function mdValue(v: FieldValue): string {
  if (v === null) return "null";
  if (typeof v === "object") return v.code === null ? "null" : mdCode(v.code);
  if (typeof v === "string") return mdInline(v);
  return String(v);
}

/** The line a bullet with nothing to show becomes; the content hook (markdownContent) drops it. */
export const NO_LINE = "\u0000";

/**
 * "label: value" pairs on one bullet; labels are ours (field names), values go through mdValue. A field left
 * out of a compact row (undefined) is not shown; a bullet left with nothing is NO_LINE.
 */
export function mdFields(fields: Array<[string, FieldValue | undefined]>, indent = ""): string {
  const kept = fields.filter((f): f is [string, FieldValue] => f[1] !== undefined);
  if (kept.length === 0) return NO_LINE;
  return `${indent}- ${kept.map(([k, v]) => `${k}: ${mdValue(v)}`).join(" · ")}`;
}

/** The source once, on one line: the release (and date), then the attribution as structuredContent gives it. */
export function mdSource(source: { release: string | null; release_date: string | null; attribution: string }): string {
  const release = `${source.release ?? "ChEMBL release unknown"}${source.release_date ? ` (${source.release_date})` : ""}`;
  return `${mdInline(release)}; ${mdInline(source.attribution)}`;
}

/** A markdown table: the columns given, one row per record; a null or absent cell is left blank. */
export function mdTable(columns: string[], rows: Array<Record<string, FieldValue | undefined>>): string {
  if (rows.length === 0) return "none";
  const cell = (v: FieldValue | undefined) => (v === undefined || v === null ? "" : mdValue(v));
  return [
    `| ${columns.join(" | ")} |`,
    `|${columns.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${columns.map((c) => cell(r[c])).join(" | ")} |`),
  ].join("\n");
}

/** "label: value" pairs on one line, leaving out the null ones. */
export function mdPresent(fields: Array<[string, FieldValue | undefined]>): string | null {
  const kept = fields.filter((f): f is [string, FieldValue] => f[1] !== null && f[1] !== undefined);
  return kept.length === 0 ? null : mdFields(kept);
}

/**
 * A markdown table of records whose columns are those of `order` that hold a value in at least one row
 * (a column null or absent in every row is left out, so sparse sections stay narrow); a cell with no value
 * is blank.
 */
export function mdSparseTable(order: string[], rows: Array<Record<string, FieldValue | undefined>>): string {
  const columns = order.filter((c) => rows.some((r) => r[c] !== undefined && r[c] !== null));
  return mdTable(columns, rows);
}

/** References in one table cell: "ref_type ref_id (ref_url)" each, separated by semicolons; undefined when there are none. */
export function mdRefsCell(refs: Array<{ ref_type?: string | null; ref_id?: string | null; ref_url?: string | null }> | undefined): string | undefined {
  if (!refs || refs.length === 0) return undefined;
  return refs
    .map((r) => [r.ref_type, r.ref_id, r.ref_url ? `(${r.ref_url})` : null].filter((p): p is string => typeof p === "string" && p !== "").join(" "))
    .filter((s) => s !== "")
    .join("; ");
}

/** The markdown columns of a declared record: its layout's, or its fields in order; a spread field's own fields in its place. */
export function mdColumns(decl: RecordDecl): string[] {
  const layout = decl.markdown;
  const names = layout && "columns" in layout ? layout.columns : decl.fields.map((f) => f.name);
  return names.flatMap((name) => {
    const field = decl.fields.find((f) => f.name === name);
    return field?.type === "object" && field.markdown === "spread" ? field.of.fields.map((f) => f.name) : [name];
  });
}

type CellField<D extends RecordDecl> = Extract<D["fields"][number], { readonly markdown: "cell" }>["name"];
/** The text of each field a declaration shows in one cell ("cell"): the tool says how its nested records sum up. */
type CellWriters<D extends RecordDecl> = { [K in CellField<D>]: (value: RecordOf<D>[K]) => string | undefined };

/**
 * The table cells of one record (its null fields may be left out): each field's value, a structure in a code span
 * ("code"), a spread object's fields in cells of their own ("spread"), a nested list or object as its writer puts it.
 */
export function mdCells<D extends RecordDecl>(decl: D, record: Partial<RecordOf<D>>, writers: CellWriters<D>): Record<string, FieldValue | undefined> {
  const fields = new Map<string, Field>(decl.fields.map((f) => [f.name, f]));
  const cells: Record<string, FieldValue | undefined> = {};
  for (const [name, value] of Object.entries<unknown>(record)) {
    const show = fields.get(name)?.markdown;
    if (show === "cell") cells[name] = (writers as Record<string, (v: unknown) => string | undefined>)[name]!(value);
    else if (show === "code" && typeof value === "string") cells[name] = { code: value };
    else if (show === "spread") Object.assign(cells, value);
    else cells[name] = value as FieldValue;
  }
  return cells;
}

/** A record laid out as lines (a document): one bullet of "label: value" pairs per line, its absent fields left out. */
export function mdLines<D extends RecordDecl>(decl: D, record: Partial<RecordOf<D>>): string[] {
  const layout = decl.markdown;
  const lines = layout && "lines" in layout ? layout.lines : [decl.fields.map((f) => f.name)];
  const values = record as Record<string, FieldValue | undefined>;
  return lines.map((line) => mdFields(line.map((name) => [name, values[name]])));
}

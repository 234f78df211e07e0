/**
 * The markdown twin of a ChEMBL answer (the text content block). Upstream strings render inert: a
 * compound name or an assay description cannot open a heading, a list, a link, an image, emphasis, code
 * or HTML. Every upstream string is written on a line this module starts (never at a line start), with
 * line breaks and control characters collapsed, markdown punctuation backslash-escaped and HTML
 * metacharacters written as entities; structures (SMILES) go verbatim into code spans.
 */
import type { Source } from "../domain/chembl/types.js";

/** Markdown punctuation that can open inline syntax (emphasis, code, links, tables, math, entities). */
const ESCAPED = /[\\`*_[\]|~$&]/g;
// eslint-disable-next-line no-control-regex
const BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * One upstream string as inert inline markdown: line breaks and control characters collapse to a space
 * (so nothing can start a block), markdown punctuation is backslash-escaped, and < > become entities (no
 * HTML). Parentheses, '!' and '#' stay as they are: with '[' escaped and no upstream text at a line start
 * they cannot open a link, an image or a heading.
 */
export function mdInline(text: string): string {
  return text
    .replace(BREAKS, " ")
    .replace(ESCAPED, (c) => `\\${c}`)
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
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

export type Scalar = string | number | boolean | null;
/** A field value: a scalar, or text to show verbatim in a code span. */
export type FieldValue = Scalar | { code: string | null };

/** A value as markdown: upstream strings escaped, code verbatim in a span, numbers and flags as written, null as "null". */
export function mdValue(v: FieldValue): string {
  if (v === null) return "null";
  if (typeof v === "object") return v.code === null ? "null" : mdCode(v.code);
  if (typeof v === "string") return mdInline(v);
  return String(v);
}

/** "label: value" pairs on one bullet; labels are ours (field names), values go through mdValue. */
export function mdFields(fields: Array<[string, FieldValue]>, indent = ""): string {
  return `${indent}- ${fields.map(([k, v]) => `${k}: ${mdValue(v)}`).join(" · ")}`;
}

/** A sub-list of references (ref_type, ref_id, ref_url), one bullet each. */
export function mdRefs(refs: Array<{ ref_type: string | null; ref_id: string | null; ref_url: string | null }>, indent: string): string[] {
  return refs.map((r) =>
    mdFields(
      [
        ["ref_type", r.ref_type],
        ["ref_id", r.ref_id],
        ["ref_url", r.ref_url],
      ],
      indent,
    ),
  );
}

export function mdSource(source: Source): string {
  return [
    "**Source**",
    mdFields([
      ["database", source.database],
      ["release", source.release],
      ["release_date", source.release_date],
      ["license", source.license],
      ["license_url", source.license_url],
    ]),
    `- attribution: ${mdInline(source.attribution)}`,
  ].join("\n");
}

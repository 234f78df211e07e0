/**
 * The input edge of the ChEMBL tools: schema fragments and the parsing behind them. IDs arrive in any
 * case with stray whitespace; a list may come as a lone string or under a singular alias; form-based
 * clients send "" for a field left blank, which reads as absent. JSON Schema `pattern` takes no flags, so
 * the advertised patterns spell the case variants out.
 */
import { createHash } from "node:crypto";
import { ToolError } from "../domain/errors.js";
import type { JsonSchema } from "../contract/tool.js";

const CHEMBL = "[Cc][Hh][Ee][Mm][Bb][Ll][0-9]{1,12}";
/** One ChEMBL ID in any case, surrounding whitespace allowed, or nothing at all (read as absent). */
const CHEMBL_ID_OR_BLANK_PATTERN = `^\\s*(${CHEMBL})?\\s*$`;
/** Batch tools take up to this many IDs per call (only the first ID_LOOKUP_CAP distinct ones are looked up). */
const ID_LIST_CEILING = 1000;

/** An optional ChEMBL ID field. */
export function chemblIdProperty(description: string): JsonSchema {
  return { type: "string", maxLength: 40, pattern: CHEMBL_ID_OR_BLANK_PATTERN, description };
}

/** A list of ChEMBL IDs that also accepts a lone string. */
export function chemblIdListProperty(description: string): JsonSchema {
  return {
    description,
    // The list first: what tools/list shows hosts (server/host-schema.ts); a lone string is accepted too.
    anyOf: [
      { type: "array", maxItems: ID_LIST_CEILING, items: { type: "string", maxLength: 40, pattern: CHEMBL_ID_OR_BLANK_PATTERN } },
      { type: "string", maxLength: 40, pattern: CHEMBL_ID_OR_BLANK_PATTERN },
    ],
  };
}

/** An optional free-text field ("" reads as absent). */
export function textProperty(description: string, maxLength = 200, extra: JsonSchema = {}): JsonSchema {
  return { type: "string", maxLength, description, ...extra };
}

/** Trimmed text, or undefined when absent or blank. */
export function optionalText(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  return s === "" ? undefined : s;
}

/** A ChEMBL ID in canonical form (upper case, trimmed), or undefined when absent or blank. */
export function optionalChemblId(v: unknown): string | undefined {
  const s = optionalText(v);
  return s === undefined ? undefined : s.toUpperCase();
}

/**
 * The IDs of a batch field and its singular alias, canonical, blanks dropped, in the order given
 * (duplicates are kept here; the service looks each distinct ID up once). At least one is required.
 */
export function chemblIdList(args: Record<string, unknown>, plural: string, singular: string): string[] {
  const out: string[] = [];
  for (const key of [plural, singular]) {
    const v = args[key];
    const items = Array.isArray(v) ? v : v === undefined ? [] : [v];
    for (const item of items) {
      const id = optionalChemblId(item);
      if (id !== undefined) out.push(id);
    }
  }
  if (out.length === 0) {
    throw new ToolError("INVALID_ARGUMENTS", `Give at least one ChEMBL ID in ${plural} (or ${singular})`, { path: `/${plural}` });
  }
  if (out.length > ID_LIST_CEILING) {
    throw new ToolError("INVALID_ARGUMENTS", `At most ${ID_LIST_CEILING} IDs per call (got ${out.length})`, { path: `/${plural}`, max: ID_LIST_CEILING });
  }
  return out;
}

/** An optional number that form clients may send as "" (read as absent). */
export function optionalNumber(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

// ---------------------------------------------------------------------------------------------------
// Cursors: an offset bound to the query it pages through

const CURSOR_MAX_LENGTH = 200;

export function cursorProperty(): JsonSchema {
  return {
    type: "string",
    maxLength: CURSOR_MAX_LENGTH,
    description: "nextCursor of the previous page.",
  };
}

/** A short fingerprint of everything that defines a query (not its page size). */
export function queryFingerprint(query: unknown): string {
  return createHash("sha256").update(JSON.stringify(query)).digest("base64url").slice(0, 16);
}

export function encodeCursor(offset: number, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ o: offset, f: fingerprint })).toString("base64url");
}

/** The offset a cursor carries; INVALID_ARGUMENTS when it is malformed or belongs to another query. */
export function decodeCursor(cursor: string | undefined, fingerprint: string): number {
  if (cursor === undefined) return 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const c = parsed as { o?: unknown; f?: unknown } | undefined;
  if (!c || typeof c.o !== "number" || !Number.isInteger(c.o) || c.o < 0 || typeof c.f !== "string") {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      "cursor is not a cursor this server issued",
      { path: "/cursor" },
      "Omit cursor to start from the first page, or pass nextCursor unchanged.",
    );
  }
  if (c.f !== fingerprint) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      "cursor belongs to a different query (the filters changed since it was issued)",
      { path: "/cursor" },
      "Pass nextCursor only with the same filters it came from, or omit it to start a new query.",
    );
  }
  return c.o;
}

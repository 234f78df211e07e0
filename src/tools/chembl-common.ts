/**
 * Output schema fragments and tool plumbing shared by the six ChEMBL tools: nullable field helpers, the schema
 * of a declared ChEMBL record (domain/chembl/records/), the source (release + attribution) object, the molecule
 * row's default columns, the annotations, budget and error codes of a ChEMBL tool, and its markdown content hook.
 * (The call options a tool hands the service come from callOptions in domain/chembl/service.ts.)
 */
import type { ErrorCode } from "../domain/errors.js";
import type { ContentBlock, JsonSchema, ToolAnnotations } from "../contract/tool.js";
import { MOLECULE } from "../domain/chembl/records/molecule.js";
import type { Field, FieldName, RecordDecl } from "../domain/chembl/records/record.js";
import { TARGET } from "../domain/chembl/records/target.js";
import { ID_LOOKUP_CAP } from "../domain/chembl/service.js";
import type { Source, TargetRow } from "../domain/chembl/types.js";
import { NO_LINE } from "./chembl-markdown.js";

export const CHEMBL_ANNOTATIONS: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: true, destructiveHint: false };
/** The tool budget; the service's own deadline (CHEMBL_DEADLINE_MS, at most 54 s) settles first. */
export const CHEMBL_BUDGET_MS = 55_000;
/** Codes every ChEMBL tool may answer (besides INVALID_ARGUMENTS, TIMEOUT and BUSY). */
export const CHEMBL_ERRORS: readonly ErrorCode[] = ["UPSTREAM_UNAVAILABLE", "RATE_LIMITED", "DEADLINE_EXCEEDED", "OFFLINE"];

export const nstr = (description: string): JsonSchema => ({ type: ["string", "null"], description });
export const nnum = (description: string): JsonSchema => ({ type: ["number", "null"], description });
export const nint = (description: string): JsonSchema => ({ type: ["integer", "null"], description });
export const nbool = (description: string): JsonSchema => ({ type: ["boolean", "null"], description });
export const str = (description: string): JsonSchema => ({ type: "string", description });
export const int = (description: string): JsonSchema => ({ type: "integer", minimum: 0, description });

export function obj(description: string, properties: Record<string, JsonSchema>, nullable = false): JsonSchema {
  return { type: nullable ? ["object", "null"] : "object", description, properties, required: Object.keys(properties), additionalProperties: false };
}

export function arr(description: string, items: JsonSchema): JsonSchema {
  return { type: "array", description, items };
}

/** The source an answer carries once: the release and a one-line CC BY-SA 3.0 attribution with the citation's DOI. */
export interface CompactSource {
  /** The SQLite dump's file name when CHEMBL_SQLITE answered (absent for the web API). */
  served_from?: string;
  release: string | null;
  release_date: string | null;
  attribution: string;
}

const SOURCE_FIELDS = obj("Where the data came from, once per answer: the ChEMBL release and the attribution to keep with it.", {
  served_from: str("Present when the answer came from a local ChEMBL SQLite dump (CHEMBL_SQLITE): the dump's file name. Absent for the web API."),
  release: nstr("The ChEMBL release the API reported (e.g. ChEMBL_36); null when its status endpoint did not answer."),
  release_date: nstr("That release's date (YYYY-MM-DD), or null."),
  attribution: str("Attribution to reproduce with the data: ChEMBL, the CC BY-SA 3.0 licence and the citation's DOI."),
});
/** served_from is the one optional field: the web API's answers leave it out. */
export const SOURCE_SCHEMA: JsonSchema = { ...SOURCE_FIELDS, required: ["release", "release_date", "attribution"] };

/** The compact form of the service's source (its long citation shortens to the DOI). */
export function compactSource(s: Source): CompactSource {
  return {
    ...(s.dump !== undefined ? { served_from: s.dump } : {}),
    release: s.release,
    release_date: s.release_date,
    attribution: `ChEMBL, EMBL-EBI. ${s.license} ${s.license_url.replace(/^https:\/\//, "").replace(/\/$/, "")}. Cite doi:10.1093/nar/gkad1004`,
  };
}

/** A copy of a row without its null fields and empty lists (an absent field is null): nothing empty repeats row by row. */
export function dropEmpty<T extends object>(row: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v === null || v === undefined || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}

/** A row schema whose fields are all optional: an absent field is null upstream (see dropEmpty). */
export function rowObj(description: string, properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: "object", description: `${description} Null fields and empty lists are left out.`, properties, required, additionalProperties: false };
}

/** The field names of a declared record, in its order (a row's columns). */
export function fieldNames<D extends RecordDecl>(decl: D): Array<FieldName<D>> {
  return decl.fields.map((f) => f.name);
}

/** The properties of a declared record's schema: each field's type (null too unless it is never null) and description. */
function recordProperties(decl: RecordDecl): Record<string, JsonSchema> {
  return Object.fromEntries(decl.fields.map((f) => [f.name, fieldSchema(f)]));
}

/** The schema of one declared record: a compact row (its null fields left out), or an object with every field. */
export function recordSchema(decl: RecordDecl): JsonSchema {
  const description = decl.description ?? "";
  return decl.compact ? rowObj(description, recordProperties(decl)) : obj(description, recordProperties(decl));
}

function fieldSchema(f: Field): JsonSchema {
  if (f.type === "object") return obj(f.description, recordProperties(f.of), f.nullable !== false);
  if (f.type === "array") return arr(f.description, "fields" in f.items ? recordSchema(f.items) : { type: f.items.type, description: f.items.description });
  const type = f.nullable === false ? f.type : [f.type, "null"];
  return f.minimum === undefined ? { type, description: f.description } : { type, minimum: f.minimum, description: f.description };
}

export const MOLECULE_ROW_PROPERTIES = recordProperties(MOLECULE);

export const MOLECULE_ROW_SCHEMA = recordSchema(MOLECULE);

/** The columns of a default molecule row: identity, family, structure, development status and safety flags. */
export const DEFAULT_MOLECULE_FIELDS: ReadonlyArray<FieldName<typeof MOLECULE>> = [
  "molecule_chembl_id",
  "pref_name",
  "parent_chembl_id",
  "molecule_type",
  "max_phase",
  "first_approval",
  "withdrawn_flag",
  "black_box_warning",
  "canonical_smiles",
  "standard_inchi_key",
  "mw_freebase",
  "similarity",
];

/** The `fields` input of a row-returning tool: columns to add to the defaults, or "all" (the enum names every column). */
export function fieldsProperty(all: readonly string[]): JsonSchema {
  return {
    type: "array",
    maxItems: all.length + 1,
    uniqueItems: true,
    items: { type: "string", enum: [...all, "all"] },
    description: 'Extra columns, or ["all"].',
  };
}

/** The columns an answer carries: the defaults plus those asked for, or every column for "all", in the schema's order. */
export function selectFields<K extends string>(all: readonly K[], defaults: readonly string[], fields: string[] | undefined): K[] {
  if (fields?.includes("all")) return [...all];
  const wanted = new Set<string>([...defaults, ...(fields ?? [])]);
  return all.filter((f) => wanted.has(f));
}

/** A row with only the columns given, its null ones left out. */
export function projectRow<T extends object>(row: T, fields: readonly string[]): Partial<T> {
  const out: Record<string, unknown> = {};
  const r = row as Record<string, unknown>;
  for (const f of fields) if (r[f] !== null && r[f] !== undefined) out[f] = r[f];
  return out as Partial<T>;
}

/** An answer object without its null top-level keys, except those in `keep` (lists stay, even empty). */
export function dropNulls<T extends object>(value: T, keep: readonly string[] = []): T {
  return Object.fromEntries(Object.entries(value).filter(([k, v]) => v !== null || keep.includes(k))) as T;
}

export const TARGET_ROW_SCHEMA = recordSchema(TARGET);

/** A target row without its null fields, nor those of its components. */
export function compactTarget(t: TargetRow): Partial<TargetRow> {
  return dropEmpty({ ...t, components: t.components.map((c) => dropEmpty(c)) as TargetRow["components"] });
}

const SECTION_STATUS_SCHEMA = (what: string) =>
  obj(`Whether ${what} were read completely.`, {
    status: {
      type: "string",
      enum: ["complete", "truncated", "failed"],
      description: "complete, truncated (more exist than were read), or failed (absent, not empty).",
    },
    total_count: nint("How many ChEMBL holds, when it said."),
    error_code: nstr("The error code when status is failed."),
  });

/** A section status that may also say how many of the records read the answer left out (a per-section limit). */
export const LIMITED_SECTION_STATUS_SCHEMA = (what: string) => {
  const schema = SECTION_STATUS_SCHEMA(what) as { properties: Record<string, JsonSchema> } & JsonSchema;
  return {
    ...schema,
    properties: {
      ...schema.properties,
      omitted: { type: "integer", minimum: 1, description: "Records read but left out by limit (present only then): ask again with a higher limit." },
    },
  };
};

/** The markdown content hook a ChEMBL tool sets (ToolBase.content). */
export function markdownContent<R>(render: (result: R) => string): (result: Record<string, unknown>) => ContentBlock[] {
  return (result) => [{ type: "text", text: dropNoLines(render(result as R)) }];
}

function dropNoLines(text: string): string {
  return text
    .split("\n")
    .filter((l) => l !== NO_LINE)
    .join("\n");
}

/** The notice of a batch lookup: present only when something was not found or deferred. */
export function batchNotice(kind: string, found: number, notFound: number, deferred: number): string | null {
  const parts: string[] = [];
  if (notFound > 0) parts.push(`${notFound} ID${notFound === 1 ? "" : "s"} matched no ${kind} in ChEMBL (not_found_ids): check them`);
  if (deferred > 0)
    parts.push(
      `${deferred} ID${deferred === 1 ? " was" : "s were"} past the first ${ID_LOOKUP_CAP} distinct and not looked up (deferred_ids): call again with them`,
    );
  if (parts.length === 0) return null;
  return `Found ${found}. ${parts.join("; ")}.`;
}

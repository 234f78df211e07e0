/**
 * Coercion at the boundary: every ChEMBL record of the web API (or of the offline dump, which answers in its
 * shape) is read here, once, into its declared record (records/): each field from the place its declaration
 * names, through its own reading or its type's coercion (coerce.ts), so an absent, empty or unreadable value is
 * null, never 0 or false.
 *
 * Each record kind has a field list that the service sends as `only=` (ChEMBL drops an unknown name silently, so
 * the list must be exactly what the reader reads): the API keys its declaration names. A test checks each reader
 * reads exactly its list.
 */
import { isObj, listOf, toFlag, toInteger, toNumber, toText } from "./coerce.js";
import { ACTIVITY } from "./records/activity.js";
import { ASSAY } from "./records/assay.js";
import { DOCUMENT } from "./records/document.js";
import { INDICATION } from "./records/indication.js";
import { MECHANISM } from "./records/mechanism.js";
import { MOLECULE } from "./records/molecule.js";
import { apiPaths, type Field, type RecordDecl, type RecordOf, type ScalarType } from "./records/record.js";
import { TARGET } from "./records/target.js";
import { WARNING } from "./records/warning.js";
import type { Json } from "./request.js";

const COERCE: Record<ScalarType, (v: unknown) => unknown> = { string: toText, number: toNumber, integer: toInteger, boolean: toFlag };

/** The `only=` list of a record: the API keys its fields read, in field order, unless it declares its own order. */
export function onlyOf(decl: RecordDecl): readonly string[] {
  return decl.only ?? [...new Set(decl.fields.flatMap((f) => apiPaths(f).map((p) => p.split(".")[0]!)))];
}

/** A getter of the value at a key or a dotted path; undefined past anything that is not an object. */
function getter(path: string): (raw: Json) => unknown {
  const keys = path.split(".");
  if (keys.length === 1) return (raw) => raw[path];
  return (raw) => {
    let v: unknown = raw;
    for (const key of keys) v = isObj(v) ? v[key] : undefined;
    return v;
  };
}

/** The one path of an object or list field. */
function onePath(field: Field): string {
  const [path, ...more] = apiPaths(field);
  if (path === undefined || more.length > 0) throw new Error(`${field.name}: an object or list field reads one API key`);
  return path;
}

function fieldReader(field: Field): (raw: Json) => unknown {
  if (field.type !== "object" && field.read) return field.read;
  if (field.type === "object") {
    const read = reader(field.of);
    const get = getter(onePath(field));
    return (raw) => {
      const v = get(raw);
      return isObj(v) ? read(v) : null;
    };
  }
  if (field.type === "array") {
    const items = field.items;
    if (!("fields" in items)) throw new Error(`${field.name}: a list of strings needs its own reading`);
    const read = reader(items);
    const get = getter(onePath(field));
    const max = field.max;
    return (raw) => {
      const all = listOf(get(raw));
      return (max === undefined ? all : all.slice(0, max)).map(read);
    };
  }
  const coerce = field.as ?? COERCE[field.type];
  const gets = apiPaths(field).map(getter);
  if (gets.length === 0) return () => null;
  if (gets.length === 1) {
    const get = gets[0]!;
    return (raw) => coerce(get(raw));
  }
  // Several keys: the first that reads a value.
  return (raw) => {
    for (const get of gets) {
      const v = coerce(get(raw));
      if (v !== null) return v;
    }
    return null;
  };
}

/** The reader of a declared record: a web API record in, the record out with its fields in declared order. */
function reader<D extends RecordDecl>(decl: D): (raw: Json) => RecordOf<D> {
  const names = decl.fields.map((f) => f.name);
  const reads = decl.fields.map(fieldReader);
  // Each record starts as a copy of one with every field in place, so a walk's thousands share one object shape.
  const blank: Json = Object.fromEntries(names.map((name) => [name, null]));
  return (raw) => {
    const out = { ...blank };
    for (let i = 0; i < names.length; i++) out[names[i]!] = reads[i]!(raw);
    return out as RecordOf<D>;
  };
}

// Molecules (the search-row shape, shared by chembl_search_molecules and chembl://molecule/{id})
export const MOLECULE_FIELDS = onlyOf(MOLECULE);
export const normalizeMolecule = reader(MOLECULE);

export const TARGET_FIELDS = onlyOf(TARGET);
export const normalizeTarget = reader(TARGET);

export const ACTIVITY_FIELDS = onlyOf(ACTIVITY);
export const normalizeActivity = reader(ACTIVITY);

export const ASSAY_FIELDS = onlyOf(ASSAY);
export const normalizeAssay = reader(ASSAY);

export const DOCUMENT_FIELDS = onlyOf(DOCUMENT);
export const normalizeDocument = reader(DOCUMENT);

// Drug records: mechanisms, indications, warnings (read across a parent's family)
export const MECHANISM_FIELDS = onlyOf(MECHANISM);
export const normalizeMechanism = reader(MECHANISM);

export const INDICATION_FIELDS = onlyOf(INDICATION);
export const normalizeIndication = reader(INDICATION);

export const WARNING_FIELDS = onlyOf(WARNING);
export const normalizeWarning = reader(WARNING);

/** The ChEMBL release as /status names it ("ChEMBL_36") and its date. */
export const STATUS_FIELDS = ["chembl_db_version", "chembl_release_date"] as const;
export type RawStatus = Partial<Record<(typeof STATUS_FIELDS)[number], unknown>>;

export function normalizeStatus(raw: RawStatus): { release: string | null; release_date: string | null } {
  return { release: toText(raw.chembl_db_version), release_date: toText(raw.chembl_release_date) };
}

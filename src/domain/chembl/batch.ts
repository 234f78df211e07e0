/**
 * Batch lookups by ChEMBL ID (assays, documents; drug info uses them for a family's forms and its
 * mechanisms' targets): one `__in` request for up to ID_LOOKUP_CAP distinct IDs.
 */
import { ASSAY_FIELDS, DOCUMENT_FIELDS, normalizeAssay, normalizeDocument } from "./normalise.js";
import type { Call, ChemblRequests, Json } from "./request.js";
import type { Assay, ChemblDocument, Source } from "./types.js";

/** Distinct IDs looked up in one `__in` request; the rest come back in deferred_ids. */
export const ID_LOOKUP_CAP = 100;

export interface BatchLookup<T> {
  items: T[];
  not_found_ids: string[];
  deferred_ids: string[];
  source: Source;
}

/** One kind of record looked up by ID: its endpoint, collection key, ID field, the fields read and their normaliser. */
export interface LookupKind<T> {
  path: string;
  key: string;
  idField: string;
  fields: readonly string[];
  what: string;
  normalise: (raw: Json) => T;
}

export const ASSAY_LOOKUP: LookupKind<Assay> = {
  path: "assay",
  key: "assays",
  idField: "assay_chembl_id",
  fields: ASSAY_FIELDS,
  what: "assays",
  normalise: (r) => normalizeAssay(r),
};

export const DOCUMENT_LOOKUP: LookupKind<ChemblDocument> = {
  path: "document",
  key: "documents",
  idField: "document_chembl_id",
  fields: DOCUMENT_FIELDS,
  what: "documents",
  normalise: (r) => normalizeDocument(r),
};

/** One `__in` request for up to ID_LOOKUP_CAP IDs. A 404 here is a broken endpoint, not a miss. */
export async function lookupRows(
  requests: ChemblRequests,
  path: string,
  key: string,
  idField: string,
  ids: readonly string[],
  fields: readonly string[],
  what: string,
  call: Call,
): Promise<Json[]> {
  if (ids.length === 0) return [];
  const page = await requests.listPage(
    path,
    key,
    [
      [`${idField}__in`, ids.join(",")],
      ["only", fields.join(",")],
      ["limit", String(ids.length)],
      ["offset", "0"],
    ],
    { what, notFoundMeansMissing: false },
    call,
  );
  return page.rows;
}

/**
 * The shared batch contract: the first ID_LOOKUP_CAP distinct IDs are looked up in one request; the
 * rest come back in deferred_ids; an ID ChEMBL holds nothing for is in not_found_ids. Items keep the
 * order the IDs were given in.
 */
export async function lookupByChemblIds<T extends object>(
  requests: ChemblRequests,
  kind: LookupKind<T>,
  ids: readonly string[],
  call: Call,
): Promise<Omit<BatchLookup<T>, "source">> {
  const distinct = [...new Set(ids)];
  const now = distinct.slice(0, ID_LOOKUP_CAP);
  const deferred = distinct.slice(ID_LOOKUP_CAP);
  const rows = (await lookupRows(requests, kind.path, kind.key, kind.idField, now, kind.fields, kind.what, call)).map(kind.normalise);
  const byId = new Map<string, T>();
  for (const r of rows) {
    const id = (r as Record<string, unknown>)[kind.idField];
    if (typeof id === "string" && !byId.has(id)) byId.set(id, r);
  }
  return {
    items: now.filter((id) => byId.has(id)).map((id) => byId.get(id)!),
    not_found_ids: now.filter((id) => !byId.has(id)),
    deferred_ids: deferred,
  };
}

/**
 * The ChEMBL data API answered from the official SQLite dump: each request the service makes (a path and
 * its Django-style parameters, see queries.ts, batch.ts, drug-info.ts) becomes SQL over the dump's own
 * tables, and the answer is built in the API's wire shape (list envelopes with page_meta, bare detail
 * objects, a 404 for a missing record), so the normalisers, the drug-information family logic, the
 * potency views and the canvas spill run unchanged on either source. Each record's API keys are filled as its
 * declaration (records/) says, from the rows read here (wire.ts).
 *
 * Only the requests the service sends are understood; anything else is a 400 naming the parameter
 * (never silently ignored). Runs in the dump's worker thread (worker.ts) with the driver's handle.
 *
 * Tables and columns are those of ChEMBL's published schema (schema_documentation.txt of each release):
 * molecule_dictionary, compound_structures, compound_properties, molecule_hierarchy, molecule_synonyms,
 * activities, ligand_eff, data_validity_lookup, assays, assay_type, relationship_type,
 * confidence_score_lookup, bioassay_ontology, assay_parameters, variant_sequences, cell_dictionary,
 * tissue_dictionary, target_dictionary, target_components, component_sequences, component_synonyms, docs,
 * drug_mechanism, mechanism_refs, drug_indication, indication_refs, drug_warning, warning_refs, version.
 */
import { ACTIVITY } from "../records/activity.js";
import { ASSAY } from "../records/assay.js";
import { DOCUMENT } from "../records/document.js";
import { INDICATION } from "../records/indication.js";
import { MECHANISM } from "../records/mechanism.js";
import { MOLECULE } from "../records/molecule.js";
import { TARGET } from "../records/target.js";
import { WARNING } from "../records/warning.js";
import { RecordRows } from "./columnar.js";
import { columnsOf, wireShape, type WireShape } from "./wire.js";

/** The slice of a SQLite driver this module needs (better-sqlite3's Database fits it). */
export interface SqlDb {
  prepare(sql: string): SqlStatement;
}

interface SqlStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  /** The rows one at a time (a loop may stop early). */
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** Rows as arrays of values in column order (true) instead of objects. */
  raw(toggle?: boolean): SqlStatement;
  /** Each row as its first column's value (true). */
  pluck(toggle?: boolean): SqlStatement;
}

export type Row = Record<string, unknown>;
export interface RestAnswer {
  status: number;
  body: unknown;
}

/** How the dump is laid out: optional tables/columns, and where the fast lookups live. */
export interface DumpLayout {
  /** Tables present in the dump (lower-case). */
  tables: Set<string>;
  /** "table.column" pairs present. */
  columns: Set<string>;
  /**
   * A lookup on table.column: the SQL condition on `alias` for "= ?" (or "IN (...)" with `n` values).
   * Uses the dump's own index when it has one, the sidecar's key table otherwise (see layout.ts). `n` is
   * the number of "?" values, or a subquery giving them.
   */
  where(table: string, column: string, alias: string, n?: number | string): string;
  /** The exact-structure key of a SMILES (its standard InChIKey), computed locally with RDKit. */
  inchiKeyOf(smiles: string): string | null;
  /** Name-search rows: molregno and rank for a text term (sidecar.ts). */
  searchNames(term: string): Array<{ molregno: number; rank: number }>;
  /** Names near a term that finds nothing (text-search.ts nearestNames); empty without the text index. */
  nearestNames(term: string): string[];
  /** Memo of a view's ordered keys, so a walk's pages do not redo the sort (worker.ts keeps it). */
  memo<T>(key: string, compute: () => T): T;
  /** A bounded cache of entity rows by key (activity pages' molecules, assays, documents). */
  entity(kind: string): Map<unknown, Row>;
}

const API_PREFIX = "/chembl/api/data";

function bad(message: string): RestAnswer {
  return { status: 400, body: { error_message: message } };
}

const NOT_FOUND: RestAnswer = { status: 404, body: null };

function placeholders(n: number): string {
  return Array.from({ length: n }, () => "?").join(",");
}

/** A limit/offset page of `total` keys, in the API's envelope. */
function envelope(path: string, key: string, rows: Row[] | RecordRows, total: number, limit: number, offset: number): RestAnswer {
  const next = offset + limit < total ? `${API_PREFIX}/${path}.json?limit=${limit}&offset=${offset + limit}` : null;
  const previous = offset > 0 ? `${API_PREFIX}/${path}.json?limit=${limit}&offset=${Math.max(0, offset - limit)}` : null;
  return { status: 200, body: { [key]: rows, page_meta: { limit, next, offset, previous, total_count: total } } };
}

function pageOf(q: URLSearchParams): { limit: number; offset: number } {
  const limit = Math.min(Math.max(1, Number(q.get("limit") ?? "20") || 20), 1000);
  const offset = Math.max(0, Number(q.get("offset") ?? "0") || 0);
  return { limit, offset };
}

/** Parameters that shape a page rather than filter it. */
const PAGING = new Set(["limit", "offset", "only", "order_by", "format"]);

/** The filters of a request, checked against the ones this path understands. */
function filters(q: URLSearchParams, known: readonly string[]): Map<string, string> | { error: string } {
  const out = new Map<string, string>();
  for (const [k, v] of q.entries()) {
    if (PAGING.has(k)) continue;
    if (!known.includes(k)) return { error: `The offline ChEMBL source does not answer the filter ${k}` };
    out.set(k, v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The router

/** The tables each resource reads: a dump without one (a subset) answers that resource empty. */
const REQUIRES: Record<string, string[]> = {
  target: ["target_dictionary", "target_components", "component_sequences", "component_synonyms"],
  activity: ["activities", "assays", "target_dictionary", "docs", "variant_sequences"],
  assay: ["assays", "target_dictionary", "docs", "variant_sequences"],
  document: ["docs"],
};

export function answer(db: SqlDb, layout: DumpLayout, path: string, q: URLSearchParams): RestAnswer {
  if (path === "status") return status(db, layout);
  const [resource, id, ...rest] = path.split("/");
  if (rest.length > 0) return NOT_FOUND;
  const missing = (REQUIRES[resource ?? ""] ?? []).filter((t) => !layout.tables.has(t));
  if (missing.length > 0) {
    if (id !== undefined) return NOT_FOUND;
    const { limit, offset } = pageOf(q);
    return envelope(resource!, `${resource === "activity" ? "activities" : `${resource}s`}`, [], 0, limit, offset);
  }
  switch (resource) {
    case "molecule":
      if (id === "search") return moleculeSearch(db, layout, q);
      if (id !== undefined) return moleculeDetail(db, layout, decodeURIComponent(id));
      return moleculeList(db, layout, q);
    case "target":
      if (id !== undefined) return targetDetail(db, layout, decodeURIComponent(id));
      return targetList(db, layout, q);
    case "activity":
      return activityList(db, layout, q);
    case "assay":
      return assayList(db, layout, q);
    case "document":
      return documentList(db, layout, q);
    case "mechanism":
    case "drug_indication":
    case "drug_warning":
      return drugSection(db, layout, resource, q);
    case "molecule_form":
      return moleculeForms(db, layout, q);
    default:
      return NOT_FOUND;
  }
}

// ---------------------------------------------------------------------------------------------------
// Release

/** The dump's own `version` table: name (e.g. ChEMBL_33) and creation_date. */
export function releaseOf(db: SqlDb, tables?: Set<string>): { release: string | null; release_date: string | null } {
  if (tables && !tables.has("version")) return { release: null, release_date: null };
  const row = db.prepare("SELECT name, creation_date FROM version ORDER BY creation_date DESC LIMIT 1").get() as Row | undefined;
  const name = typeof row?.name === "string" ? row.name : null;
  const date = row?.creation_date;
  const day = typeof date === "string" ? date.slice(0, 10) : null;
  return { release: name, release_date: day };
}

function status(db: SqlDb, layout: DumpLayout): RestAnswer {
  const { release, release_date } = releaseOf(db, layout.tables);
  return { status: 200, body: { chembl_db_version: release, chembl_release_date: release_date, status: "UP" } };
}

// ---------------------------------------------------------------------------------------------------
// Molecules

function chemblIdOf(db: SqlDb, layout: DumpLayout, molregno: unknown): string | null {
  const row = db.prepare(`SELECT chembl_id FROM molecule_dictionary m WHERE ${layout.where("molecule_dictionary", "molregno", "m")}`).get(molregno) as
    Row | undefined;
  return typeof row?.chembl_id === "string" ? row.chembl_id : null;
}

function molregnoOf(db: SqlDb, chemblId: string): number | null {
  const row = db.prepare("SELECT molregno FROM molecule_dictionary WHERE chembl_id = ?").get(chemblId) as Row | undefined;
  return typeof row?.molregno === "number" ? row.molregno : null;
}

const MOLECULE_WIRE = wireShape(MOLECULE);

/** Molecule records in the API's shape for the given molregnos, in that order. */
function moleculeRecords(db: SqlDb, layout: DumpLayout, molregnos: number[]): Row[] {
  if (molregnos.length === 0) return [];
  const n = molregnos.length;
  const md = db.prepare(`SELECT * FROM molecule_dictionary m WHERE ${layout.where("molecule_dictionary", "molregno", "m", n)}`).all(...molregnos) as Row[];
  const cs = layout.tables.has("compound_structures")
    ? (db
        .prepare(
          `SELECT molregno, ${columnsOf(MOLECULE, "s").join(", ")} FROM compound_structures s WHERE ${layout.where("compound_structures", "molregno", "s", n)}`,
        )
        .all(...molregnos) as Row[])
    : [];
  const cp = layout.tables.has("compound_properties")
    ? (db.prepare(`SELECT * FROM compound_properties p WHERE ${layout.where("compound_properties", "molregno", "p", n)}`).all(...molregnos) as Row[])
    : [];
  const mh = layout.tables.has("molecule_hierarchy")
    ? (db
        .prepare(
          `SELECT h.molregno, pm.chembl_id AS parent_chembl_id FROM molecule_hierarchy h LEFT JOIN molecule_dictionary pm ON pm.molregno = h.parent_molregno
       WHERE ${layout.where("molecule_hierarchy", "molregno", "h", n)}`,
        )
        .all(...molregnos) as Row[])
    : [];
  const by = (rows: Row[]) => new Map(rows.map((r) => [r.molregno as number, r]));
  const mdBy = by(md);
  const csBy = by(cs);
  const cpBy = by(cp);
  const mhBy = by(mh);
  const out: Row[] = [];
  for (const molregno of molregnos) {
    const m = mdBy.get(molregno);
    if (m) out.push(MOLECULE_WIRE.record({ m, s: csBy.get(molregno), p: cpBy.get(molregno), h: mhBy.get(molregno) }));
  }
  return out;
}

function moleculeDetail(db: SqlDb, layout: DumpLayout, id: string): RestAnswer {
  // The API's detail route takes a ChEMBL ID (the service sends only those).
  const molregno = molregnoOf(db, id.toUpperCase());
  if (molregno === null) return NOT_FOUND;
  const [record] = moleculeRecords(db, layout, [molregno]);
  return record ? { status: 200, body: record } : NOT_FOUND;
}

/** Keeps the molregnos whose max_phase is at least `min` (the order kept). */
function phaseFilter(db: SqlDb, layout: DumpLayout, molregnos: number[], min: string | undefined): number[] {
  if (min === undefined || molregnos.length === 0) return molregnos;
  const keep = new Set(
    (
      db
        .prepare(
          `SELECT molregno FROM molecule_dictionary m WHERE ${layout.where("molecule_dictionary", "molregno", "m", molregnos.length)} AND m.max_phase >= ?`,
        )
        .all(...molregnos, Number(min)) as Row[]
    ).map((r) => r.molregno as number),
  );
  return molregnos.filter((m) => keep.has(m));
}

const MOLECULE_FILTERS = [
  "molecule_chembl_id",
  "molecule_chembl_id__in",
  "molecule_structures__standard_inchi_key",
  "molecule_structures__canonical_smiles__flexmatch",
  "max_phase__gte",
] as const;

function moleculeList(db: SqlDb, layout: DumpLayout, q: URLSearchParams): RestAnswer {
  const f = filters(q, MOLECULE_FILTERS);
  if ("error" in f) return bad(f.error);
  const { limit, offset } = pageOf(q);
  let molregnos: number[];
  if (f.has("molecule_chembl_id") || f.has("molecule_chembl_id__in")) {
    const ids = f.has("molecule_chembl_id") ? [f.get("molecule_chembl_id")!] : f.get("molecule_chembl_id__in")!.split(",");
    molregnos = (
      db.prepare(`SELECT molregno FROM molecule_dictionary WHERE chembl_id IN (${placeholders(ids.length)}) ORDER BY molregno`).all(...ids) as Row[]
    ).map((r) => r.molregno as number);
  } else {
    let key: string | null | undefined = f.get("molecule_structures__standard_inchi_key");
    const smiles = f.get("molecule_structures__canonical_smiles__flexmatch");
    if (key === undefined && smiles !== undefined) {
      key = layout.inchiKeyOf(smiles);
      if (key === null) return bad(`Input string ${smiles} is not a valid SMILES string`);
    }
    if (key === undefined) return bad("The offline ChEMBL source needs a filter on the molecule list");
    if (!layout.tables.has("compound_structures")) return envelope("molecule", "molecules", [], 0, limit, offset);
    molregnos = (
      db
        .prepare(`SELECT molregno FROM compound_structures s WHERE ${layout.where("compound_structures", "standard_inchi_key", "s")} ORDER BY molregno`)
        .all(key) as Row[]
    ).map((r) => r.molregno as number);
  }
  molregnos = phaseFilter(db, layout, molregnos, f.get("max_phase__gte"));
  const rows = moleculeRecords(db, layout, molregnos.slice(offset, offset + limit));
  return envelope("molecule", "molecules", rows, molregnos.length, limit, offset);
}

/** Offline text search: see layout.ts for the ranking (exact name, exact synonym, prefix, contains). */
function moleculeSearch(db: SqlDb, layout: DumpLayout, q: URLSearchParams): RestAnswer {
  const f = filters(q, ["q", "max_phase__gte"]);
  if ("error" in f) return bad(f.error);
  const term = (f.get("q") ?? "").trim();
  if (term === "") return bad("Structure or identifier required.");
  const { limit, offset } = pageOf(q);
  const ranked = layout.memo(`search:${term.toLowerCase()}`, () => layout.searchNames(term));
  const molregnos = phaseFilter(
    db,
    layout,
    ranked.map((r) => r.molregno),
    f.get("max_phase__gte"),
  );
  const rows = moleculeRecords(db, layout, molregnos.slice(offset, offset + limit));
  const answer = envelope("molecule/search", "molecules", rows, molregnos.length, limit, offset);
  // A name that finds nothing gets the nearest names the dump holds (the web API has no such key; only this source writes it).
  if (ranked.length === 0) {
    const near = layout.nearestNames(term);
    if (near.length > 0) (answer.body as Record<string, unknown>).did_you_mean = near;
  }
  return answer;
}

// ---------------------------------------------------------------------------------------------------
// Families

/** The forms of a parent: molecule_hierarchy rows whose parent is it (the parent itself included). */
function familyOf(db: SqlDb, layout: DumpLayout, parentMolregno: number): number[] {
  if (!layout.tables.has("molecule_hierarchy")) return [parentMolregno];
  const rows = db
    .prepare(`SELECT h.molregno FROM molecule_hierarchy h WHERE ${layout.where("molecule_hierarchy", "parent_molregno", "h")} ORDER BY h.molregno`)
    .all(parentMolregno) as Row[];
  const out = rows.map((r) => r.molregno as number);
  if (!out.includes(parentMolregno)) out.unshift(parentMolregno);
  return out;
}

function moleculeForms(db: SqlDb, layout: DumpLayout, q: URLSearchParams): RestAnswer {
  const f = filters(q, ["parent_chembl_id"]);
  if ("error" in f) return bad(f.error);
  const { limit, offset } = pageOf(q);
  const parentId = f.get("parent_chembl_id");
  const parent = parentId ? molregnoOf(db, parentId) : null;
  if (parent === null || !layout.tables.has("molecule_hierarchy")) return envelope("molecule_form", "molecule_forms", [], 0, limit, offset);
  const rows = db
    .prepare(
      `SELECT m.chembl_id, h.molregno FROM molecule_hierarchy h JOIN molecule_dictionary m ON m.molregno = h.molregno
       WHERE ${layout.where("molecule_hierarchy", "parent_molregno", "h")} ORDER BY h.molregno`,
    )
    .all(parent) as Row[];
  const forms = rows.map((r) => ({ is_parent: r.molregno === parent ? "True" : "False", molecule_chembl_id: r.chembl_id, parent_chembl_id: parentId }));
  return envelope("molecule_form", "molecule_forms", forms.slice(offset, offset + limit), forms.length, limit, offset);
}

// ---------------------------------------------------------------------------------------------------
// Targets

/** The API's component relationship: the dump's own column when it has one, else read from the target type. */
function relationshipOf(layout: DumpLayout, row: Row, targetType: unknown): unknown {
  if (layout.columns.has("target_components.relationship")) return row.relationship;
  const rna = row.component_type === "RNA";
  switch (targetType) {
    case "SINGLE PROTEIN":
      return "SINGLE PROTEIN";
    case "PROTEIN COMPLEX":
    case "PROTEIN COMPLEX GROUP":
    case "PROTEIN NUCLEIC-ACID COMPLEX":
      return rna ? "RNA SUBUNIT" : "PROTEIN SUBUNIT";
    case "PROTEIN FAMILY":
    case "SELECTIVITY GROUP":
    case "PROTEIN-PROTEIN INTERACTION":
      return "GROUP MEMBER";
    default:
      return null;
  }
}

const TARGET_WIRE = wireShape(TARGET);

function targetRecords(db: SqlDb, layout: DumpLayout, tids: number[]): Row[] {
  if (tids.length === 0) return [];
  const n = tids.length;
  const td = db.prepare(`SELECT * FROM target_dictionary t WHERE ${layout.where("target_dictionary", "tid", "t", n)}`).all(...tids) as Row[];
  const rel = layout.columns.has("target_components.relationship") ? ", tc.relationship" : "";
  const comps = db
    .prepare(
      `SELECT tc.tid, tc.component_id${rel}, cs.accession, cs.description, cs.component_type FROM target_components tc
       JOIN component_sequences cs ON cs.component_id = tc.component_id
       WHERE ${layout.where("target_components", "tid", "tc", n)} ORDER BY tc.tid, tc.targcomp_id`,
    )
    .all(...tids) as Row[];
  const compIds = [...new Set(comps.map((c) => c.component_id as number))];
  const syns = compIds.length
    ? (db
        .prepare(
          `SELECT component_id, component_synonym, syn_type FROM component_synonyms y WHERE ${layout.where("component_synonyms", "component_id", "y", compIds.length)} ORDER BY compsyn_id`,
        )
        .all(...compIds) as Row[])
    : [];
  const tdBy = new Map(td.map((t) => [t.tid as number, t]));
  const out: Row[] = [];
  for (const tid of tids) {
    const t = tdBy.get(tid);
    if (!t) continue;
    // Each component with its relationship and its synonyms in the API's shape.
    const components = comps
      .filter((c) => c.tid === tid)
      .map((c) => ({
        c: {
          ...c,
          relationship: relationshipOf(layout, c, t.target_type),
          synonyms: syns.filter((s) => s.component_id === c.component_id).map((s) => ({ component_synonym: s.component_synonym, syn_type: s.syn_type })),
        },
      }));
    out.push(TARGET_WIRE.record({ t, components }));
  }
  return out;
}

function targetDetail(db: SqlDb, layout: DumpLayout, id: string): RestAnswer {
  const row = db.prepare("SELECT tid FROM target_dictionary WHERE chembl_id = ?").get(id.toUpperCase()) as Row | undefined;
  if (!row) return NOT_FOUND;
  const [record] = targetRecords(db, layout, [row.tid as number]);
  return record ? { status: 200, body: record } : NOT_FOUND;
}

const TARGET_FILTERS = [
  "target_chembl_id",
  "target_chembl_id__in",
  "target_components__accession",
  "target_components__target_component_synonyms__component_synonym__iexact",
  "pref_name__icontains",
  "organism__iexact",
  "target_type",
] as const;

function targetList(db: SqlDb, layout: DumpLayout, q: URLSearchParams): RestAnswer {
  const f = filters(q, TARGET_FILTERS);
  if ("error" in f) return bad(f.error);
  const { limit, offset } = pageOf(q);
  const where: string[] = [];
  const args: unknown[] = [];
  if (f.has("target_chembl_id")) {
    where.push("t.chembl_id = ?");
    args.push(f.get("target_chembl_id"));
  }
  if (f.has("target_chembl_id__in")) {
    const ids = f.get("target_chembl_id__in")!.split(",");
    where.push(`t.chembl_id IN (${placeholders(ids.length)})`);
    args.push(...ids);
  }
  if (f.has("target_components__accession")) {
    where.push(
      `t.tid IN (SELECT tc.tid FROM target_components tc JOIN component_sequences cs ON cs.component_id = tc.component_id WHERE ${layout.where("component_sequences", "accession", "cs")})`,
    );
    args.push(f.get("target_components__accession"));
  }
  const gene = f.get("target_components__target_component_synonyms__component_synonym__iexact");
  if (gene !== undefined) {
    // ChEMBL's gene symbols can carry trailing spaces ("EGFR "): the sidecar keys them trimmed and lower-cased.
    where.push(
      `t.tid IN (SELECT tc.tid FROM target_components tc JOIN component_synonyms y ON y.component_id = tc.component_id WHERE ${layout.where("component_synonyms", "component_synonym_key", "y")})`,
    );
    args.push(gene.trim().toLowerCase());
  }
  if (f.has("pref_name__icontains")) {
    where.push("t.pref_name LIKE ? ESCAPE '\\'");
    args.push(`%${f.get("pref_name__icontains")!.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (f.has("organism__iexact")) {
    where.push("lower(trim(t.organism)) = lower(?)");
    args.push(f.get("organism__iexact"));
  }
  if (f.has("target_type")) {
    where.push("t.target_type = ?");
    args.push(f.get("target_type"));
  }
  const sql = `SELECT t.tid FROM target_dictionary t${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY t.chembl_id`;
  const tids = layout.memo(`targets:${sql}:${JSON.stringify(args)}`, () => (db.prepare(sql).all(...args) as Row[]).map((r) => r.tid as number));
  return envelope("target", "targets", targetRecords(db, layout, tids.slice(offset, offset + limit)), tids.length, limit, offset);
}

// ---------------------------------------------------------------------------------------------------
// Activities

const ACTIVITY_FILTERS = [
  "parent_molecule_chembl_id",
  "molecule_chembl_id",
  "target_chembl_id",
  "standard_type__iexact",
  "assay_type",
  "target_organism__iexact",
  "assay_variant_mutation__isnull",
  "assay_variant_mutation",
  "pchembl_value__isnull",
  "pchembl_value__gte",
] as const;

const ORDERS: Record<string, string> = {
  activity_id: "a.activity_id",
  "-activity_id": "a.activity_id DESC",
  pchembl_value: "a.pchembl_value IS NULL, a.pchembl_value",
  "-pchembl_value": "a.pchembl_value IS NULL DESC, a.pchembl_value DESC",
};

function activityList(db: SqlDb, layout: DumpLayout, q: URLSearchParams): RestAnswer {
  const f = filters(q, ACTIVITY_FILTERS);
  if ("error" in f) return bad(f.error);
  const { limit, offset } = pageOf(q);
  const where: string[] = [];
  const args: unknown[] = [];
  const joins = new Set<string>();
  const assay = "JOIN assays s ON s.assay_id = a.assay_id";
  const target = "JOIN target_dictionary t ON t.tid = s.tid";
  const variant = "LEFT JOIN variant_sequences v ON v.variant_id = s.variant_id";
  const parent = f.get("parent_molecule_chembl_id");
  const molecule = f.get("molecule_chembl_id");
  if (parent !== undefined || molecule !== undefined) {
    const molregno = molregnoOf(db, (parent ?? molecule)!);
    const forms = molregno === null ? [] : parent !== undefined ? familyOf(db, layout, molregno) : [molregno];
    if (forms.length === 0) return envelope("activity", "activities", [], 0, limit, offset);
    where.push(layout.where("activities", "molregno", "a", forms.length));
    args.push(...forms);
  }
  if (f.has("target_chembl_id")) {
    const tid = db.prepare("SELECT tid FROM target_dictionary WHERE chembl_id = ?").get(f.get("target_chembl_id")) as Row | undefined;
    if (!tid) return envelope("activity", "activities", [], 0, limit, offset);
    // Activities by their assays' keys (never a join that needs an index on activities.assay_id the dump may lack).
    where.push(layout.where("activities", "assay_id", "a", `SELECT s2.assay_id FROM assays s2 WHERE ${layout.where("assays", "tid", "s2")}`));
    args.push(tid.tid);
  }
  if (f.has("standard_type__iexact")) {
    where.push("lower(a.standard_type) = lower(?)");
    args.push(f.get("standard_type__iexact"));
  }
  if (f.has("assay_type")) {
    joins.add(assay);
    where.push("s.assay_type = ?");
    args.push(f.get("assay_type"));
  }
  if (f.has("target_organism__iexact")) {
    joins.add(assay).add(target);
    where.push("lower(trim(t.organism)) = lower(?)");
    args.push(f.get("target_organism__iexact"));
  }
  if (f.get("assay_variant_mutation__isnull") === "true") {
    joins.add(assay).add(variant);
    where.push("(v.mutation IS NULL OR trim(v.mutation) = '')");
  } else if (f.get("assay_variant_mutation__isnull") === "false") {
    joins.add(assay).add(variant);
    where.push("(v.mutation IS NOT NULL AND trim(v.mutation) <> '')");
  }
  if (f.has("assay_variant_mutation")) {
    joins.add(assay).add(variant);
    where.push("v.mutation = ?");
    args.push(f.get("assay_variant_mutation"));
  }
  if (f.get("pchembl_value__isnull") === "true") where.push("a.pchembl_value IS NULL");
  else if (f.get("pchembl_value__isnull") === "false") where.push("a.pchembl_value IS NOT NULL");
  if (f.has("pchembl_value__gte")) {
    where.push("a.pchembl_value >= ?");
    args.push(Number(f.get("pchembl_value__gte")));
  }
  const orders = q.getAll("order_by").map((o) => ORDERS[o]);
  if (orders.some((o) => o === undefined)) return bad("The offline ChEMBL source orders activities by activity_id and pchembl_value only");
  const orderSql = orders.length ? orders.join(", ") : "a.activity_id";
  const sql = `SELECT a.activity_id FROM activities a ${[...joins].join(" ")}${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY ${orderSql}`;
  // A walk asks page after page of one view: its ordered keys are read once, each page then reads its rows by key.
  const ids = layout.memo(`activities:${sql}:${JSON.stringify(args)}`, () => (db.prepare(sql).all(...args) as Row[]).map((r) => r.activity_id as number));
  return envelope("activity", "activities", activityRecords(db, layout, ids.slice(offset, offset + limit)), ids.length, limit, offset);
}

/**
 * The entities an activity row names (its molecule with parent and SMILES, its assay with target, variant and
 * BAO label, its document), read once per key for the distinct keys a page lacks and kept (layout.entity):
 * a page then reads 3 rows per activity instead of joining 12 tables.
 */
function entities(db: SqlDb, layout: DumpLayout, kind: "molecule" | "assay" | "doc", keys: unknown[]): Map<unknown, Row> {
  const cache = layout.entity(kind);
  const missing = [...new Set(keys.filter((k) => k !== null && k !== undefined && !cache.has(k)))];
  if (missing.length > 0) {
    const list = placeholders(missing.length);
    const hasBao = layout.tables.has("bioassay_ontology");
    const sql =
      kind === "molecule"
        ? `SELECT m.molregno AS k, m.chembl_id AS molecule_chembl_id, m.pref_name AS molecule_pref_name,
             COALESCE(pm.chembl_id, m.chembl_id) AS parent_molecule_chembl_id, cs.canonical_smiles
           FROM molecule_dictionary m LEFT JOIN molecule_hierarchy h ON h.molregno = m.molregno
           LEFT JOIN molecule_dictionary pm ON pm.molregno = h.parent_molregno LEFT JOIN compound_structures cs ON cs.molregno = m.molregno
           WHERE m.molregno IN (${list})`
        : kind === "assay"
          ? `SELECT s.assay_id AS k, s.chembl_id AS assay_chembl_id, s.assay_type, s.description AS assay_description,
               t.chembl_id AS target_chembl_id, t.pref_name AS target_pref_name, t.organism AS target_organism, t.tax_id AS target_tax_id,
               v.mutation AS assay_variant_mutation, v.accession AS assay_variant_accession${hasBao ? ", b.label AS bao_label" : ""}
             FROM assays s LEFT JOIN target_dictionary t ON t.tid = s.tid LEFT JOIN variant_sequences v ON v.variant_id = s.variant_id
             ${hasBao ? "LEFT JOIN bioassay_ontology b ON b.bao_id = s.bao_format" : ""}
             WHERE s.assay_id IN (${list})`
          : `SELECT d.doc_id AS k, d.chembl_id AS document_chembl_id, d.journal AS document_journal, d.year AS document_year FROM docs d WHERE d.doc_id IN (${list})`;
    for (const r of db.prepare(sql).all(...missing) as Row[]) cache.set(r.k, r);
    for (const k of missing) if (!cache.has(k)) cache.set(k, {});
  }
  return cache;
}

/**
 * The columns a page reads of each row, in this order (its rows are read as arrays, by position): the activity's
 * keys and the activities columns its record reads, then its ligand_eff columns with the key that says a row
 * joined, then its data validity text (NULLs in their places when the dump lacks those tables).
 */
const PAGE_COLUMNS = [...new Set(["activity_id", "molregno", "assay_id", "doc_id", ...columnsOf(ACTIVITY, "a")])];
const LE_COLUMNS = [...columnsOf(ACTIVITY, "le"), "activity_id"];
const DV_COLUMNS = columnsOf(ACTIVITY, "dv");
const positions = (columns: string[], from: number) => Object.fromEntries(columns.map((c, i) => [c, from + i]));
const PAGE = positions(PAGE_COLUMNS, 0);
const LE = positions(LE_COLUMNS, PAGE_COLUMNS.length);
const DV = positions(DV_COLUMNS, PAGE_COLUMNS.length + LE_COLUMNS.length);
/** An activity record from a page row: the activities columns (a), ligand_eff (le) and data_validity_lookup (dv) all in it. */
const ACTIVITY_WIRE = wireShape(ACTIVITY, { a: PAGE, le: LE, dv: DV });

/**
 * The activity records of a page, in the order of `ids`: its activities read as arrays (a page is the hot
 * path of a walk: no object per row), with their ligand efficiency and validity text, and the entities
 * they name from the per-worker caches; held as rows of values under the record's API keys (columnar.ts packs
 * them column by column, and their JSON is the objects they stand for).
 */
function activityRecords(db: SqlDb, layout: DumpLayout, ids: number[]): RecordRows {
  if (ids.length === 0) return new RecordRows(ACTIVITY_WIRE.keys, []);
  const hasLe = layout.tables.has("ligand_eff");
  const hasDv = layout.tables.has("data_validity_lookup");
  const select = (alias: string, columns: string[], has: boolean) => columns.map((c) => (has ? `${alias}.${c}` : "NULL")).join(", ");
  const rows = db
    .prepare(
      `SELECT ${select("a", PAGE_COLUMNS, true)}, ${select("le", LE_COLUMNS, hasLe)}, ${select("dv", DV_COLUMNS, hasDv)}
       FROM activities a
       ${hasLe ? "LEFT JOIN ligand_eff le ON le.activity_id = a.activity_id" : ""}
       ${hasDv ? "LEFT JOIN data_validity_lookup dv ON dv.data_validity_comment = a.data_validity_comment" : ""}
       WHERE a.activity_id IN (${placeholders(ids.length)})`,
    )
    .raw(true)
    .all(...ids) as unknown[][];
  const molecules = entities(
    db,
    layout,
    "molecule",
    rows.map((r) => r[PAGE.molregno!]),
  );
  const assays = entities(
    db,
    layout,
    "assay",
    rows.map((r) => r[PAGE.assay_id!]),
  );
  const docs = entities(
    db,
    layout,
    "doc",
    rows.map((r) => r[PAGE.doc_id!]),
  );
  const byId = new Map(rows.map((r) => [r[PAGE.activity_id!] as number, r]));
  const leJoined = LE.activity_id!;
  // One row set, refilled for each activity (no object per row).
  const set: Record<string, unknown> = {};
  const out: unknown[][] = [];
  for (const id of ids) {
    const r = byId.get(id);
    if (r === undefined) continue;
    const molregno = r[PAGE.molregno!];
    const docId = r[PAGE.doc_id!];
    set.a = r;
    set.dv = r;
    set.le = r[leJoined] === null || r[leJoined] === undefined ? undefined : r;
    set.m = molregno === null ? undefined : molecules.get(molregno);
    set.s = assays.get(r[PAGE.assay_id!]);
    set.d = docId === null ? undefined : docs.get(docId);
    out.push(ACTIVITY_WIRE.values(set));
  }
  return new RecordRows(ACTIVITY_WIRE.keys, out);
}

// ---------------------------------------------------------------------------------------------------
// Assays and documents (looked up by ChEMBL ID, batch.ts)

function idsIn(f: Map<string, string>, key: string): string[] {
  return (f.get(key) ?? "").split(",").filter((s) => s !== "");
}

const ASSAY_WIRE = wireShape(ASSAY);
const DOCUMENT_WIRE = wireShape(DOCUMENT);

function assayList(db: SqlDb, layout: DumpLayout, q: URLSearchParams): RestAnswer {
  const f = filters(q, ["assay_chembl_id__in"]);
  if ("error" in f) return bad(f.error);
  const { limit, offset } = pageOf(q);
  const ids = idsIn(f, "assay_chembl_id__in");
  if (ids.length === 0) return envelope("assay", "assays", [], 0, limit, offset);
  const opt = (table: string, sql: string) => (layout.tables.has(table) ? sql : "");
  const rows = db
    .prepare(
      `SELECT s.*, t.chembl_id AS target_chembl_id, d.chembl_id AS document_chembl_id
         ${opt("assay_type", ", at.assay_desc AS assay_type_description")}
         ${opt("relationship_type", ", rt.relationship_desc AS relationship_description")}
         ${opt("confidence_score_lookup", ", cl.description AS confidence_description")}
         ${opt("bioassay_ontology", ", b.label AS bao_label")}
         ${opt("cell_dictionary", ", cd.chembl_id AS cell_chembl_id")}
         ${opt("tissue_dictionary", ", td.chembl_id AS tissue_chembl_id")}
       FROM assays s
       LEFT JOIN target_dictionary t ON t.tid = s.tid
       LEFT JOIN docs d ON d.doc_id = s.doc_id
       ${opt("assay_type", "LEFT JOIN assay_type at ON at.assay_type = s.assay_type")}
       ${opt("relationship_type", "LEFT JOIN relationship_type rt ON rt.relationship_type = s.relationship_type")}
       ${opt("confidence_score_lookup", "LEFT JOIN confidence_score_lookup cl ON cl.confidence_score = s.confidence_score")}
       ${opt("bioassay_ontology", "LEFT JOIN bioassay_ontology b ON b.bao_id = s.bao_format")}
       ${opt("cell_dictionary", "LEFT JOIN cell_dictionary cd ON cd.cell_id = s.cell_id")}
       ${opt("tissue_dictionary", "LEFT JOIN tissue_dictionary td ON td.tissue_id = s.tissue_id")}
       WHERE s.chembl_id IN (${placeholders(ids.length)}) ORDER BY s.assay_id`,
    )
    .all(...ids) as Row[];
  const assayIds = rows.map((r) => r.assay_id as number);
  const params =
    assayIds.length && layout.tables.has("assay_parameters")
      ? (db
          .prepare(`SELECT * FROM assay_parameters p WHERE ${layout.where("assay_parameters", "assay_id", "p", assayIds.length)} ORDER BY p.assay_param_id`)
          .all(...assayIds) as Row[])
      : [];
  const variantIds = rows.map((r) => r.variant_id).filter((v) => v !== null && v !== undefined);
  const variants = variantIds.length
    ? (db.prepare(`SELECT * FROM variant_sequences WHERE variant_id IN (${placeholders(variantIds.length)})`).all(...variantIds) as Row[])
    : [];
  const out = rows.map((s) =>
    ASSAY_WIRE.record({
      s,
      v: variants.find((v) => v.variant_id === s.variant_id),
      parameters: params.filter((p) => p.assay_id === s.assay_id).map((p) => ({ p })),
    }),
  );
  return envelope("assay", "assays", out.slice(offset, offset + limit), out.length, limit, offset);
}

function documentList(db: SqlDb, _layout: DumpLayout, q: URLSearchParams): RestAnswer {
  const f = filters(q, ["document_chembl_id__in"]);
  if ("error" in f) return bad(f.error);
  const { limit, offset } = pageOf(q);
  const ids = idsIn(f, "document_chembl_id__in");
  if (ids.length === 0) return envelope("document", "documents", [], 0, limit, offset);
  const rows = db.prepare(`SELECT * FROM docs WHERE chembl_id IN (${placeholders(ids.length)}) ORDER BY doc_id`).all(...ids) as Row[];
  const out = rows.map((d) => DOCUMENT_WIRE.record({ d }));
  return envelope("document", "documents", out.slice(offset, offset + limit), out.length, limit, offset);
}

// ---------------------------------------------------------------------------------------------------
// Drug sections: mechanisms, indications, warnings of a parent's family

interface SectionSpec {
  table: string;
  key: string;
  idColumn: string;
  refsTable: string;
  wire: WireShape;
}

const SECTIONS: Record<string, SectionSpec> = {
  mechanism: { table: "drug_mechanism", key: "mechanisms", idColumn: "mec_id", refsTable: "mechanism_refs", wire: wireShape(MECHANISM) },
  drug_indication: { table: "drug_indication", key: "drug_indications", idColumn: "drugind_id", refsTable: "indication_refs", wire: wireShape(INDICATION) },
  drug_warning: { table: "drug_warning", key: "drug_warnings", idColumn: "warning_id", refsTable: "warning_refs", wire: wireShape(WARNING) },
};

function drugSection(db: SqlDb, layout: DumpLayout, resource: string, q: URLSearchParams): RestAnswer {
  const spec = SECTIONS[resource]!;
  const f = filters(q, ["parent_molecule_chembl_id"]);
  if ("error" in f) return bad(f.error);
  const { limit, offset } = pageOf(q);
  const order = q.getAll("order_by");
  if (order.some((o) => o !== spec.idColumn)) return bad(`The offline ChEMBL source orders ${resource} by ${spec.idColumn} only`);
  const parentId = f.get("parent_molecule_chembl_id");
  const parent = parentId ? molregnoOf(db, parentId) : null;
  if (parent === null || !layout.tables.has(spec.table)) return envelope(resource, spec.key, [], 0, limit, offset);
  const family = familyOf(db, layout, parent);
  const target = resource === "mechanism" ? ", t.chembl_id AS target_chembl_id" : "";
  const targetJoin = resource === "mechanism" ? "LEFT JOIN target_dictionary t ON t.tid = x.tid" : "";
  const rows = db
    .prepare(
      `SELECT x.*, m.chembl_id AS molecule_chembl_id, m.max_phase AS molecule_max_phase, ? AS parent_molecule_chembl_id${target} FROM ${spec.table} x
       JOIN molecule_dictionary m ON m.molregno = x.molregno ${targetJoin}
       WHERE ${layout.where(spec.table, "molregno", "x", family.length)} ORDER BY x.${spec.idColumn}`,
    )
    .all(chemblIdOf(db, layout, parent), ...family) as Row[];
  const page = rows.slice(offset, offset + limit);
  const ids = page.map((r) => r[spec.idColumn]);
  const refs =
    ids.length && layout.tables.has(spec.refsTable)
      ? (db.prepare(`SELECT * FROM ${spec.refsTable} WHERE ${spec.idColumn} IN (${placeholders(ids.length)})`).all(...ids) as Row[])
      : [];
  const out = page.map((x) => spec.wire.record({ x, refs: refs.filter((r) => r[spec.idColumn] === x[spec.idColumn]).map((r) => ({ r })) }));
  return envelope(resource, spec.key, out, rows.length, limit, offset);
}

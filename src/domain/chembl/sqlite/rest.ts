/**
 * The ChEMBL data API answered from the official SQLite dump: each request the service makes (a path and
 * its Django-style parameters, see queries.ts, batch.ts, drug-info.ts) becomes SQL over the dump's own
 * tables, and the answer is built in the API's wire shape (list envelopes with page_meta, bare detail
 * objects, a 404 for a missing record), so the normalisers, the drug-information family logic, the
 * potency views and the canvas spill run unchanged on either source.
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
import { RecordRows } from "./columnar.js";

/** The slice of a SQLite driver this module needs (better-sqlite3's Database fits it). */
export interface SqlDb {
  prepare(sql: string): SqlStatement;
}

export interface SqlStatement {
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

/** Molecule records in the API's shape for the given molregnos, in that order. */
function moleculeRecords(db: SqlDb, layout: DumpLayout, molregnos: number[]): Row[] {
  if (molregnos.length === 0) return [];
  const n = molregnos.length;
  const md = db.prepare(`SELECT * FROM molecule_dictionary m WHERE ${layout.where("molecule_dictionary", "molregno", "m", n)}`).all(...molregnos) as Row[];
  const cs = layout.tables.has("compound_structures")
    ? (db
        .prepare(
          `SELECT molregno, canonical_smiles, standard_inchi, standard_inchi_key FROM compound_structures s WHERE ${layout.where("compound_structures", "molregno", "s", n)}`,
        )
        .all(...molregnos) as Row[])
    : [];
  const cp = layout.tables.has("compound_properties")
    ? (db.prepare(`SELECT * FROM compound_properties p WHERE ${layout.where("compound_properties", "molregno", "p", n)}`).all(...molregnos) as Row[])
    : [];
  const mh = layout.tables.has("molecule_hierarchy")
    ? (db
        .prepare(
          `SELECT h.molregno, pm.chembl_id AS parent_chembl_id, am.chembl_id AS active_chembl_id FROM molecule_hierarchy h
       LEFT JOIN molecule_dictionary pm ON pm.molregno = h.parent_molregno LEFT JOIN molecule_dictionary am ON am.molregno = h.active_molregno
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
    if (!m) continue;
    const s = csBy.get(molregno);
    const p = cpBy.get(molregno);
    const h = mhBy.get(molregno);
    out.push({
      molecule_chembl_id: m.chembl_id,
      pref_name: m.pref_name ?? null,
      molecule_type: m.molecule_type ?? null,
      max_phase: m.max_phase ?? null,
      first_approval: m.first_approval ?? null,
      withdrawn_flag: m.withdrawn_flag ?? null,
      black_box_warning: m.black_box_warning ?? null,
      therapeutic_flag: m.therapeutic_flag ?? null,
      molecule_hierarchy: h
        ? { molecule_chembl_id: m.chembl_id, parent_chembl_id: h.parent_chembl_id ?? null, active_chembl_id: h.active_chembl_id ?? null }
        : null,
      molecule_properties: p
        ? {
            alogp: p.alogp ?? null,
            full_molformula: p.full_molformula ?? null,
            full_mwt: p.full_mwt ?? null,
            hba: p.hba ?? null,
            hbd: p.hbd ?? null,
            mw_freebase: p.mw_freebase ?? null,
            num_ro5_violations: p.num_ro5_violations ?? null,
            psa: p.psa ?? null,
            qed_weighted: p.qed_weighted ?? null,
          }
        : null,
      molecule_structures: s
        ? { canonical_smiles: s.canonical_smiles ?? null, standard_inchi: s.standard_inchi ?? null, standard_inchi_key: s.standard_inchi_key ?? null }
        : null,
    });
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
  return envelope("molecule/search", "molecules", rows, molregnos.length, limit, offset);
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
  if (layout.columns.has("target_components.relationship")) return row.relationship ?? null;
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
    out.push({
      organism: t.organism ?? null,
      pref_name: t.pref_name ?? null,
      species_group_flag: t.species_group_flag ?? null,
      target_chembl_id: t.chembl_id,
      target_components: comps
        .filter((c) => c.tid === tid)
        .map((c) => ({
          accession: c.accession ?? null,
          component_description: c.description ?? null,
          component_id: c.component_id,
          component_type: c.component_type ?? null,
          relationship: relationshipOf(layout, c, t.target_type),
          target_component_synonyms: syns
            .filter((s) => s.component_id === c.component_id)
            .map((s) => ({ component_synonym: s.component_synonym, syn_type: s.syn_type })),
        })),
      target_type: t.target_type ?? null,
      tax_id: t.tax_id ?? null,
    });
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

/** The activity columns a page reads, in this order (its rows are read as arrays, by position). */
const PAGE_COLUMNS = [
  "activity_id",
  "molregno",
  "assay_id",
  "doc_id",
  "action_type",
  "activity_comment",
  "data_validity_comment",
  "pchembl_value",
  "potential_duplicate",
  "relation",
  "src_id",
  "standard_relation",
  "standard_type",
  "standard_units",
  "standard_upper_value",
  "standard_value",
  "type",
  "units",
  "value",
] as const;
const C = Object.fromEntries(PAGE_COLUMNS.map((c, i) => [c, i])) as Record<(typeof PAGE_COLUMNS)[number], number>;

/** An activity record's keys in the API's shape, in the order its values are written below. */
const ACTIVITY_KEYS = [
  "action_type",
  "activity_comment",
  "activity_id",
  "assay_chembl_id",
  "assay_description",
  "assay_type",
  "assay_variant_accession",
  "assay_variant_mutation",
  "bao_label",
  "canonical_smiles",
  "data_validity_comment",
  "data_validity_description",
  "document_chembl_id",
  "document_journal",
  "document_year",
  "ligand_efficiency",
  "molecule_chembl_id",
  "molecule_pref_name",
  "parent_molecule_chembl_id",
  "pchembl_value",
  "potential_duplicate",
  "relation",
  "src_id",
  "standard_relation",
  "standard_type",
  "standard_units",
  "standard_upper_value",
  "standard_value",
  "target_chembl_id",
  "target_organism",
  "target_pref_name",
  "target_tax_id",
  "type",
  "units",
  "value",
];

/**
 * The activity records of a page, in the order of `ids`: its activities read as arrays (a page is the hot
 * path of a walk: no object per row), with their ligand efficiency and validity text, and the entities
 * they name from the per-worker caches; held as rows of values under ACTIVITY_KEYS (columnar.ts packs them
 * column by column, and their JSON is the objects they stand for).
 */
function activityRecords(db: SqlDb, layout: DumpLayout, ids: number[]): RecordRows {
  if (ids.length === 0) return new RecordRows(ACTIVITY_KEYS, []);
  const hasLe = layout.tables.has("ligand_eff");
  const hasDv = layout.tables.has("data_validity_lookup");
  const le = PAGE_COLUMNS.length;
  const dv = le + (hasLe ? 5 : 0);
  const rows = db
    .prepare(
      `SELECT ${PAGE_COLUMNS.map((c) => `a.${c}`).join(", ")}
         ${hasLe ? ", le.le, le.lle, le.bei, le.sei, le.activity_id" : ""}
         ${hasDv ? ", dv.description" : ""}
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
    rows.map((r) => r[C.molregno]),
  );
  const assays = entities(
    db,
    layout,
    "assay",
    rows.map((r) => r[C.assay_id]),
  );
  const docs = entities(
    db,
    layout,
    "doc",
    rows.map((r) => r[C.doc_id]),
  );
  const none: Row = {};
  const byId = new Map(rows.map((r) => [r[C.activity_id] as number, r]));
  const out: unknown[][] = [];
  for (const id of ids) {
    const r = byId.get(id);
    if (r === undefined) continue;
    const molregno = r[C.molregno];
    const docId = r[C.doc_id];
    const m = (molregno === null ? none : molecules.get(molregno)) ?? none;
    const s = assays.get(r[C.assay_id]) ?? none;
    const d = (docId === null ? none : docs.get(docId)) ?? none;
    const leId = hasLe ? r[le + 4] : null;
    out.push([
      r[C.action_type] ?? null,
      r[C.activity_comment] ?? null,
      r[C.activity_id],
      s.assay_chembl_id ?? null,
      s.assay_description ?? null,
      s.assay_type ?? null,
      s.assay_variant_accession ?? null,
      s.assay_variant_mutation ?? null,
      s.bao_label ?? null,
      m.canonical_smiles ?? null,
      r[C.data_validity_comment] ?? null,
      hasDv ? (r[dv] ?? null) : null,
      d.document_chembl_id ?? null,
      d.document_journal ?? null,
      d.document_year ?? null,
      leId !== undefined && leId !== null ? { bei: r[le + 2] ?? null, le: r[le] ?? null, lle: r[le + 1] ?? null, sei: r[le + 3] ?? null } : null,
      m.molecule_chembl_id ?? null,
      m.molecule_pref_name ?? null,
      m.parent_molecule_chembl_id ?? null,
      r[C.pchembl_value] ?? null,
      r[C.potential_duplicate] ?? null,
      r[C.relation] ?? null,
      r[C.src_id] ?? null,
      r[C.standard_relation] ?? null,
      r[C.standard_type] ?? null,
      r[C.standard_units] ?? null,
      r[C.standard_upper_value] ?? null,
      r[C.standard_value] ?? null,
      s.target_chembl_id ?? null,
      s.target_organism ?? null,
      s.target_pref_name ?? null,
      s.target_tax_id ?? null,
      r[C.type] ?? null,
      r[C.units] ?? null,
      r[C.value] ?? null,
    ]);
  }
  return new RecordRows(ACTIVITY_KEYS, out);
}

// ---------------------------------------------------------------------------------------------------
// Assays and documents (looked up by ChEMBL ID, batch.ts)

function idsIn(f: Map<string, string>, key: string): string[] {
  return (f.get(key) ?? "").split(",").filter((s) => s !== "");
}

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
  const out = rows.map((r) => {
    const v = variants.find((x) => x.variant_id === r.variant_id);
    return {
      assay_category: r.assay_category ?? null,
      assay_cell_type: r.assay_cell_type ?? null,
      assay_chembl_id: r.chembl_id,
      assay_organism: r.assay_organism ?? null,
      assay_parameters: params
        .filter((p) => p.assay_id === r.assay_id)
        .map((p) => ({
          comments: p.comments ?? null,
          relation: p.relation ?? null,
          standard_relation: p.standard_relation ?? null,
          standard_text_value: p.standard_text_value ?? null,
          standard_type: p.standard_type ?? null,
          standard_units: p.standard_units ?? null,
          standard_value: p.standard_value ?? null,
          text_value: p.text_value ?? null,
          type: p.type ?? null,
          units: p.units ?? null,
          value: p.value ?? null,
        })),
      assay_strain: r.assay_strain ?? null,
      assay_subcellular_fraction: r.assay_subcellular_fraction ?? null,
      assay_tax_id: r.assay_tax_id ?? null,
      assay_test_type: r.assay_test_type ?? null,
      assay_tissue: r.assay_tissue ?? null,
      assay_type: r.assay_type ?? null,
      assay_type_description: r.assay_type_description ?? null,
      bao_format: r.bao_format ?? null,
      bao_label: r.bao_label ?? null,
      cell_chembl_id: r.cell_chembl_id ?? null,
      confidence_description: r.confidence_description ?? null,
      confidence_score: r.confidence_score ?? null,
      description: r.description ?? null,
      document_chembl_id: r.document_chembl_id ?? null,
      relationship_description: r.relationship_description ?? null,
      relationship_type: r.relationship_type ?? null,
      src_id: r.src_id ?? null,
      target_chembl_id: r.target_chembl_id ?? null,
      tissue_chembl_id: r.tissue_chembl_id ?? null,
      variant_sequence: v
        ? { accession: v.accession ?? null, isoform: v.isoform ?? null, mutation: v.mutation ?? null, organism: v.organism ?? null, version: v.version ?? null }
        : null,
    };
  });
  return envelope("assay", "assays", out.slice(offset, offset + limit), out.length, limit, offset);
}

function documentList(db: SqlDb, _layout: DumpLayout, q: URLSearchParams): RestAnswer {
  const f = filters(q, ["document_chembl_id__in"]);
  if ("error" in f) return bad(f.error);
  const { limit, offset } = pageOf(q);
  const ids = idsIn(f, "document_chembl_id__in");
  if (ids.length === 0) return envelope("document", "documents", [], 0, limit, offset);
  const rows = db.prepare(`SELECT * FROM docs WHERE chembl_id IN (${placeholders(ids.length)}) ORDER BY doc_id`).all(...ids) as Row[];
  // The dump's docs table has no journal_full_title (the API adds it from its journal list): offline it reads null.
  const out = rows.map((d) => ({
    abstract: d.abstract ?? null,
    authors: d.authors ?? null,
    doc_type: d.doc_type ?? null,
    document_chembl_id: d.chembl_id,
    doi: d.doi ?? null,
    first_page: d.first_page ?? null,
    issue: d.issue ?? null,
    journal: d.journal ?? null,
    journal_full_title: null,
    last_page: d.last_page ?? null,
    patent_id: d.patent_id ?? null,
    pubmed_id: d.pubmed_id ?? null,
    src_id: d.src_id ?? null,
    title: d.title ?? null,
    volume: d.volume ?? null,
    year: d.year ?? null,
  }));
  return envelope("document", "documents", out.slice(offset, offset + limit), out.length, limit, offset);
}

// ---------------------------------------------------------------------------------------------------
// Drug sections: mechanisms, indications, warnings of a parent's family

interface SectionSpec {
  table: string;
  key: string;
  idColumn: string;
  refs: { table: string; field: string } | null;
  record(r: Row): Row;
}

const SECTIONS: Record<string, SectionSpec> = {
  mechanism: {
    table: "drug_mechanism",
    key: "mechanisms",
    idColumn: "mec_id",
    refs: { table: "mechanism_refs", field: "mechanism_refs" },
    record: (r) => ({
      action_type: r.action_type ?? null,
      binding_site_comment: r.binding_site_comment ?? null,
      direct_interaction: r.direct_interaction ?? null,
      disease_efficacy: r.disease_efficacy ?? null,
      max_phase: r.molecule_max_phase ?? null,
      mec_id: r.mec_id,
      mechanism_comment: r.mechanism_comment ?? null,
      mechanism_of_action: r.mechanism_of_action ?? null,
      molecular_mechanism: r.molecular_mechanism ?? null,
      selectivity_comment: r.selectivity_comment ?? null,
      target_chembl_id: r.target_chembl_id ?? null,
    }),
  },
  drug_indication: {
    table: "drug_indication",
    key: "drug_indications",
    idColumn: "drugind_id",
    refs: { table: "indication_refs", field: "indication_refs" },
    record: (r) => ({
      drugind_id: r.drugind_id,
      efo_id: r.efo_id ?? null,
      efo_term: r.efo_term ?? null,
      max_phase_for_ind: r.max_phase_for_ind ?? null,
      mesh_heading: r.mesh_heading ?? null,
      mesh_id: r.mesh_id ?? null,
    }),
  },
  drug_warning: {
    table: "drug_warning",
    key: "drug_warnings",
    idColumn: "warning_id",
    refs: { table: "warning_refs", field: "warning_refs" },
    record: (r) => ({
      efo_id: r.efo_id ?? null,
      efo_term: r.efo_term ?? null,
      warning_class: r.warning_class ?? null,
      warning_country: r.warning_country ?? null,
      warning_description: r.warning_description ?? null,
      warning_id: r.warning_id,
      warning_type: r.warning_type ?? null,
      warning_year: r.warning_year ?? null,
    }),
  },
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
      `SELECT x.*, m.chembl_id AS molecule_chembl_id, m.max_phase AS molecule_max_phase${target} FROM ${spec.table} x
       JOIN molecule_dictionary m ON m.molregno = x.molregno ${targetJoin}
       WHERE ${layout.where(spec.table, "molregno", "x", family.length)} ORDER BY x.${spec.idColumn}`,
    )
    .all(...family) as Row[];
  const page = rows.slice(offset, offset + limit);
  const ids = page.map((r) => r[spec.idColumn]);
  const refs =
    spec.refs && ids.length && layout.tables.has(spec.refs.table)
      ? (db.prepare(`SELECT * FROM ${spec.refs.table} WHERE ${spec.idColumn} IN (${placeholders(ids.length)})`).all(...ids) as Row[])
      : [];
  const parentChemblId = chemblIdOf(db, layout, parent);
  const out = page.map((r) => {
    const rec: Row = { ...spec.record(r), molecule_chembl_id: r.molecule_chembl_id, parent_molecule_chembl_id: parentChemblId };
    if (spec.refs)
      rec[spec.refs.field] = refs
        .filter((x) => x[spec.idColumn] === r[spec.idColumn])
        .map((x) => ({ ref_id: x.ref_id ?? null, ref_type: x.ref_type ?? null, ref_url: x.ref_url ?? null }));
    return rec;
  });
  return envelope(resource, spec.key, out, rows.length, limit, offset);
}

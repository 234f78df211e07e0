/**
 * The dump's layout and its sidecar: which lookups the read-only dump can answer from its own indexes, and
 * a sidecar SQLite file holding key tables for the others (never written into the dump).
 *
 * A key table `k_<table>_<column>(k, rid)` maps a column's value (or a derived key, e.g. a gene symbol
 * trimmed and lower-cased) to the dump row's rowid, indexed on k; a lookup then reads
 * `alias.rowid IN (SELECT rid FROM side.k_... WHERE k = ?)`. The `names` table holds every molecule's
 * preferred name (kind 0) and synonym (kind 1), trimmed and lower-cased, for the offline text search
 * (text-search.ts, with its trigram index `names_fts`).
 * The sidecar is stamped with the dump's size, mtime and release; a stale one is rebuilt.
 */
import type { DumpLayout, Row, SqlDb } from "./rest.js";
import { nearestNames, searchNames } from "./text-search.js";

/** The lookups the offline source makes: table, column, and the key expression when it is not the column itself. */
const LOOKUPS: ReadonlyArray<{ table: string; column: string; expr?: string }> = [
  { table: "molecule_dictionary", column: "molregno" },
  { table: "compound_structures", column: "molregno" },
  { table: "compound_structures", column: "standard_inchi_key" },
  { table: "compound_properties", column: "molregno" },
  { table: "molecule_hierarchy", column: "molregno" },
  { table: "molecule_hierarchy", column: "parent_molregno" },
  { table: "activities", column: "molregno" },
  { table: "activities", column: "assay_id" },
  { table: "assays", column: "tid" },
  { table: "assay_parameters", column: "assay_id" },
  { table: "target_dictionary", column: "tid" },
  { table: "target_components", column: "tid" },
  { table: "component_sequences", column: "accession" },
  { table: "component_synonyms", column: "component_id" },
  { table: "component_synonyms", column: "component_synonym_key", expr: "lower(trim(component_synonym))" },
  { table: "drug_mechanism", column: "molregno" },
  { table: "drug_indication", column: "molregno" },
  { table: "drug_warning", column: "molregno" },
];

/** 2: names in molregno order with a covering index on key, and their trigram index (text-search.ts). */
export const SIDECAR_FORMAT = 2;

/** Columns that lead one of the dump's own indexes (a primary key or unique constraint counts), as "table.column". */
export function indexedColumns(db: SqlDb, tables: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const table of tables) {
    for (const col of db.prepare(`PRAGMA table_info(${quote(table)})`).all() as Row[]) {
      if (typeof col.pk === "number" && col.pk === 1 && String(col.type).toUpperCase() === "INTEGER") out.add(`${table}.${String(col.name)}`);
    }
    for (const ix of db.prepare(`PRAGMA index_list(${quote(table)})`).all() as Row[]) {
      const first = (db.prepare(`PRAGMA index_info(${quote(String(ix.name))})`).all() as Row[]).find((c) => c.seqno === 0);
      if (first && typeof first.name === "string") out.add(`${table}.${first.name}`);
    }
  }
  return out;
}

export function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function keyTable(table: string, column: string): string {
  return `k_${table}_${column}`;
}

/** The lookups the dump has no index for (its tables present): the sidecar builds these. */
export function missingLookups(tables: Set<string>, indexed: Set<string>): Array<{ table: string; column: string; expr?: string }> {
  return LOOKUPS.filter((l) => tables.has(l.table) && (l.expr !== undefined || !indexed.has(`${l.table}.${l.column}`)));
}

export interface LayoutParts {
  tables: Set<string>;
  columns: Set<string>;
  indexed: Set<string>;
  /** Key tables present in the attached sidecar (as "table.column"). */
  sidecarKeys: Set<string>;
  /** The sidecar holds the names table. */
  sidecarNames: boolean;
  /** The sidecar holds the names' trigram index (text-search.ts). */
  sidecarText: boolean;
}

export function tablesOf(db: SqlDb): { tables: Set<string>; columns: Set<string> } {
  const tables = new Set((db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table'").all() as Row[]).map((r) => String(r.name).toLowerCase()));
  const columns = new Set<string>();
  for (const t of tables) for (const c of db.prepare(`PRAGMA table_info(${quote(t)})`).all() as Row[]) columns.add(`${t}.${String(c.name).toLowerCase()}`);
  return { tables, columns };
}

const MEMO_ENTRIES = 16;
const ENTITY_ENTRIES = 200_000;

/** The layout the translator reads (rest.ts), over a connection with the sidecar attached as `side` when there is one. */
export function makeLayout(db: SqlDb, parts: LayoutParts, inchiKeyOf: (smiles: string) => string | null): DumpLayout {
  const memo = new Map<string, unknown>();
  const entities = new Map<string, Map<unknown, Row>>();
  const expr = new Map(LOOKUPS.filter((l) => l.expr).map((l) => [`${l.table}.${l.column}`, l.expr!]));
  return {
    tables: parts.tables,
    columns: parts.columns,
    where(table, column, alias, n = 1) {
      const list = typeof n === "string" ? n : Array.from({ length: n }, () => "?").join(",");
      const key = `${table}.${column}`;
      if (parts.sidecarKeys.has(key)) return `${alias}.rowid IN (SELECT rid FROM side.${keyTable(table, column)} WHERE k IN (${list}))`;
      // Without a sidecar key table: the dump's own column (indexed or scanned), or the key's expression.
      const e = expr.get(key);
      return `${e ? e.replace(/\b(component_synonym)\b/g, `${alias}.$1`) : `${alias}.${column}`} IN (${list})`;
    },
    inchiKeyOf,
    nearestNames(term) {
      return parts.sidecarNames ? nearestNames(db, "side", term, parts.sidecarText) : [];
    },
    searchNames(term) {
      if (parts.sidecarNames) return searchNames(db, "side", term, parts.sidecarText);
      // Without a sidecar: the same ranking by a scan of the dump's own tables.
      const t = term.trim().toLowerCase();
      const source = `(SELECT lower(trim(pref_name)) AS key, molregno, 0 AS kind FROM molecule_dictionary WHERE pref_name IS NOT NULL
            UNION ALL SELECT lower(trim(synonyms)), molregno, 1 FROM molecule_synonyms WHERE synonyms IS NOT NULL)`;
      const rows = db
        .prepare(
          `SELECT molregno, MIN(CASE WHEN key = @t AND kind = 0 THEN 0 WHEN key = @t THEN 1 WHEN substr(key, 1, length(@t)) = @t THEN 2 ELSE 3 END) AS rank
           FROM ${source} WHERE instr(key, @t) > 0 GROUP BY molregno ORDER BY rank, molregno LIMIT 10000`,
        )
        .all({ t }) as Row[];
      return rows.map((r) => ({ molregno: r.molregno as number, rank: r.rank as number }));
    },
    entity(kind) {
      let cache = entities.get(kind);
      // Bounded: a cache past ENTITY_ENTRIES starts over (the dump is read-only, so an entry never goes stale).
      if (!cache || cache.size > ENTITY_ENTRIES) entities.set(kind, (cache = new Map<unknown, Row>()));
      return cache;
    },
    memo<T>(key: string, compute: () => T): T {
      if (memo.has(key)) {
        const v = memo.get(key) as T;
        memo.delete(key);
        memo.set(key, v);
        return v;
      }
      const v = compute();
      memo.set(key, v);
      if (memo.size > MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
      return v;
    },
  };
}

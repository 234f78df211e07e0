/**
 * The offline text search over the sidecar's `names` table (every preferred name and synonym, trimmed and
 * lower-cased, with its molregno; kind 0 a preferred name, 1 a synonym), at full-release scale.
 *
 * Ranking (README, offline section): a molecule's best name decides: 0 its preferred name is the query,
 * 1 a synonym is, 2 a name starts with it, 3 a name contains it; ties by molregno; at most NAME_CAP hits.
 * It is the ranking of a plain scan (`instr(key, t) > 0`, GROUP BY molregno, ORDER BY rank, molregno),
 * computed without reading every name:
 *   - exact and prefix hits from the index on key (a prefix is a key range; one holding many names, a common
 *     letter, is read from the names in molregno order until the cap instead);
 *   - "contains" hits only while fewer than NAME_CAP are ranked, read in molregno order (the names are
 *     written in molregno order, so rowid order is molregno order) until the cap is reached: from the
 *     FTS5 trigram index `names_fts` (every 3-character substring of each name) for a query of 3 or more
 *     characters, checked against the name itself; by reading the names in that order for a shorter query
 *     (a trigram index cannot answer it: a common one stops early, a rare one reads them all).
 */
import type { Row, SqlDb } from "./rest.js";

/** Hits a text search answers at most (the web API's ceiling, queries.ts NAME_SEARCH_CEILING). */
const NAME_CAP = 10_000;

/**
 * The sidecar's text index over the names: contentless (the names table holds the text), by trigram, case
 * kept (keys are lower-cased already). Each name is indexed with two U+0001 after it, so that every
 * occurrence of a 1- or 2-character query also starts a trigram (the last characters of a name too).
 */
export const TEXT_INDEX_DDL = "CREATE VIRTUAL TABLE names_fts USING fts5(key, content='', tokenize='trigram case_sensitive 1', detail=none)";

/**
 * Fills the text index from the names table (rowid for rowid), merges it into one segment, and lists its
 * trigrams in names_grams (a 1- or 2-character query looks up the trigrams it starts; FTS5's own
 * vocabulary table reads every doclist to answer that).
 */
export const TEXT_INDEX_FILL = [
  "INSERT INTO names_fts (rowid, key) SELECT rowid, key || char(1, 1) FROM names",
  "INSERT INTO names_fts (names_fts) VALUES ('optimize')",
  "CREATE VIRTUAL TABLE temp.names_vocab USING fts5vocab(main, names_fts, 'row')",
  "CREATE TABLE names_grams (g TEXT PRIMARY KEY) WITHOUT ROWID",
  "INSERT INTO names_grams SELECT term FROM temp.names_vocab",
  "DROP TABLE temp.names_vocab",
];

/** A prefix matching over this many times the cap in names is read in molregno order instead of whole (a common letter). */
const PREFIX_READ_FACTOR = 8;

/** A short query whose trigrams are more than this many is read by a scan instead (a common letter: the scan stops early). */
const MAX_OR_TRIGRAMS = 64;

/** A string as SQLite stores it: a lone UTF-16 surrogate becomes U+FFFD (what the driver binds in its place). */
function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/**
 * The least string above every string that starts with `t`, in code point order (UTF-8's byte order, which
 * SQLite's BINARY collation compares): `t` with its last code point raised by one (past the surrogates),
 * carried left past U+10FFFF. Null when no string is above them (`t` all U+10FFFF).
 */
export function prefixEnd(t: string): string | null {
  const points = Array.from(t, (c) => c.codePointAt(0)!);
  while (points.length > 0) {
    let last = points.pop()! + 1;
    if (last >= 0xd800 && last <= 0xdfff) last = 0xe000;
    if (last <= 0x10ffff) return String.fromCodePoint(...points, last);
  }
  return null;
}

const ftsString = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The distinct 3-code-point substrings of `t`, as FTS5 strings ANDed (every one is in a name that contains `t`); null under 3 characters. */
export function trigramQuery(t: string): string | null {
  const points = Array.from(t);
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= points.length; i++) grams.add(points.slice(i, i + 3).join(""));
  if (grams.size === 0) return null;
  return [...grams].map(ftsString).join(" AND ");
}

/** Molregnos in ascending order, each once (the order rank 2 lists them in). */
function sortedDistinct(values: readonly number[]): Float64Array {
  const sorted = Float64Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i]!;
  return sorted.subarray(0, n);
}

/**
 * The ranked molregnos for a text query, over `schema`.names (with `schema`.names_fts and names_grams when
 * `textIndex`). `cap` is NAME_CAP but for tests.
 */
export function searchNames(db: SqlDb, schema: string, term: string, textIndex: boolean, cap = NAME_CAP): Array<{ molregno: number; rank: number }> {
  const t = wellFormed(term.trim().toLowerCase());
  // Rank 0 and 1: a preferred name or a synonym is the query.
  const exact = new Map<number, number>();
  for (const row of db.prepare(`SELECT molregno, kind FROM ${schema}.names WHERE key = ?`).all(t) as Row[]) {
    const molregno = row.molregno as number;
    const r = row.kind === 0 ? 0 : 1;
    if (!exact.has(molregno) || r < exact.get(molregno)!) exact.set(molregno, r);
  }
  const out = [...exact].sort((a, b) => a[1] - b[1] || a[0] - b[0]).map(([molregno, rank]) => ({ molregno, rank }));
  if (out.length >= cap) return out.slice(0, cap);
  // Rank 2: a name starts with the query: a key range of the index on key, read whole when it holds fewer
  // than PREFIX_READ_CAP names; a larger one (a common letter) by the names in molregno order until the cap.
  const end = prefixEnd(t);
  const range = end === null ? `key > ?` : `key > ? AND key < ?`;
  const bounds = end === null ? [t] : [t, end];
  const limit = cap * PREFIX_READ_FACTOR;
  const prefixed = db
    .prepare(`SELECT molregno FROM ${schema}.names WHERE ${range} LIMIT ?`)
    .pluck()
    .all(...bounds, limit) as number[];
  const inOrder: Iterable<number> =
    prefixed.length < limit
      ? sortedDistinct(prefixed)
      : (db
          .prepare(`SELECT molregno FROM ${schema}.names WHERE ${range.replace(/key/g, "+key")} ORDER BY rowid`)
          .pluck()
          .iterate(...bounds) as Iterable<number>);
  let last = -1;
  for (const molregno of inOrder) {
    if (molregno === last || exact.has(molregno)) continue;
    last = molregno;
    out.push({ molregno, rank: 2 });
    if (out.length >= cap) break;
  }
  if (out.length >= cap) return out;
  // Rank 3: the names containing the query, in molregno order, until the cap.
  const ranked = new Set(out.map((h) => h.molregno));
  for (const molregno of containing(db, schema, t, textIndex)) {
    if (ranked.has(molregno)) continue;
    ranked.add(molregno);
    out.push({ molregno, rank: 3 });
    if (out.length >= cap) break;
  }
  return out;
}

/** The molregnos of the names containing `t`, in rowid (molregno) order, each checked against the name itself. */
function containing(db: SqlDb, schema: string, t: string, textIndex: boolean): Iterable<number> {
  let query = textIndex ? trigramQuery(t) : null;
  if (textIndex && query === null && t.length > 0) {
    // Under 3 characters: the trigrams starting with the query (the index holds one for each occurrence).
    const end = prefixEnd(t);
    const grams = (
      end === null
        ? db
            .prepare(`SELECT g FROM ${schema}.names_grams WHERE g >= ? LIMIT ?`)
            .pluck()
            .all(t, MAX_OR_TRIGRAMS + 1)
        : db
            .prepare(`SELECT g FROM ${schema}.names_grams WHERE g >= ? AND g < ? LIMIT ?`)
            .pluck()
            .all(t, end, MAX_OR_TRIGRAMS + 1)
    ) as string[];
    if (grams.length === 0) return [];
    if (grams.length <= MAX_OR_TRIGRAMS) query = grams.map(ftsString).join(" OR ");
  }
  const rows =
    query !== null
      ? db
          .prepare(
            `SELECT n.molregno FROM ${schema}.names_fts f JOIN ${schema}.names n ON n.rowid = f.rowid
             WHERE f.names_fts MATCH ? AND instr(n.key, ?) > 0 ORDER BY f.rowid`,
          )
          .pluck()
          .iterate(query, t)
      : db.prepare(`SELECT molregno FROM ${schema}.names WHERE instr(key, ?) > 0 ORDER BY rowid`).pluck().iterate(t);
  return rows as Iterable<number>;
}

/** Postings of one trigram read at most for a suggestion; a commoner trigram ("ine", "ate") says little and is skipped. */
const MAX_SUGGESTION_POSTINGS = 20_000;
/** Names scored at most for a suggestion (those sharing the most trigrams with the query). */
const MAX_SUGGESTION_CANDIDATES = 400;
/** Trigram similarity (Jaccard) a suggested name reaches at least. */
const MIN_SUGGESTION_SIMILARITY = 0.3;

function gramsOf(t: string): Set<string> {
  const points = Array.from(t);
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= points.length; i++) grams.add(points.slice(i, i + 3).join(""));
  return grams;
}

/**
 * The names nearest a query that finds nothing (a misspelt "gefitnib"), from the text index's trigrams: the names
 * sharing the most trigrams with it, ranked by trigram similarity (Jaccard), each name once, at most `limit`.
 * Empty without the text index or for a query under 4 characters (too few trigrams to tell names apart).
 */
export function nearestNames(db: SqlDb, schema: string, term: string, textIndex: boolean, limit = 5): string[] {
  const t = wellFormed(term.trim().toLowerCase());
  if (!textIndex || Array.from(t).length < 4) return [];
  const grams = gramsOf(t);
  const shared = new Map<number, number>();
  const postings = db.prepare(`SELECT rowid FROM ${schema}.names_fts WHERE names_fts MATCH ? LIMIT ${MAX_SUGGESTION_POSTINGS + 1}`).pluck();
  for (const gram of grams) {
    const rowids = postings.all(ftsString(gram)) as number[];
    if (rowids.length > MAX_SUGGESTION_POSTINGS) continue;
    for (const rowid of rowids) shared.set(rowid, (shared.get(rowid) ?? 0) + 1);
  }
  const need = Math.max(2, Math.ceil(grams.size / 3));
  const candidates = [...shared]
    .filter(([, n]) => n >= need)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, MAX_SUGGESTION_CANDIDATES)
    .map(([rowid]) => rowid);
  if (candidates.length === 0) return [];
  const keys = db
    .prepare(`SELECT DISTINCT key FROM ${schema}.names WHERE rowid IN (${candidates.map(() => "?").join(",")})`)
    .pluck()
    .all(...candidates) as string[];
  const scored = keys
    .filter((key) => key !== t)
    .map((key) => {
      const other = gramsOf(key);
      let common = 0;
      for (const g of grams) if (other.has(g)) common++;
      return { key, similarity: common / (grams.size + other.size - common) };
    })
    .filter((s) => s.similarity >= MIN_SUGGESTION_SIMILARITY)
    .sort((a, b) => b.similarity - a.similarity || a.key.localeCompare(b.key));
  return scored.slice(0, limit).map((s) => s.key);
}

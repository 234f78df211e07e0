/**
 * The offline text search (src/domain/chembl/sqlite/text-search.ts) ranks exactly as the plain scan it
 * replaced: every name containing the query, a molecule ranked by its best name (exact preferred name,
 * exact synonym, prefix, contains), ties by molregno, cut at the cap. Checked on random names tables
 * (mixed case, spaces and dashes, letters whose lower case is longer, astral characters, a molecule with
 * several names) against that scan, through the trigram index and without it, with small caps so the
 * early stop is exercised.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import fc from "fast-check";
import { TEXT_INDEX_DDL, TEXT_INDEX_FILL, prefixEnd, searchNames, trigramQuery } from "../../../src/domain/chembl/sqlite/text-search.js";
import type { SqlDb } from "../../../src/domain/chembl/sqlite/rest.js";

interface Db extends SqlDb {
  exec(sql: string): void;
  close(): void;
}

function driver(): (new (path: string) => Db) | null {
  try {
    return createRequire(import.meta.url)("better-sqlite3") as new (path: string) => Db;
  } catch {
    return null;
  }
}

const Driver = driver();
const skip = Driver === null ? "the optional SQLite driver better-sqlite3 is not installed (npm install better-sqlite3@12)" : false;

/** The scan the search replaced (its ranking is the README's), with the cap as its LIMIT. */
function scan(db: Db, term: string, cap: number): Array<{ molregno: number; rank: number }> {
  const t = term.trim().toLowerCase();
  return (
    db
      .prepare(
        `SELECT molregno, MIN(CASE WHEN key = @t AND kind = 0 THEN 0 WHEN key = @t THEN 1 WHEN substr(key, 1, length(@t)) = @t THEN 2 ELSE 3 END) AS rank
         FROM names WHERE instr(key, @t) > 0 GROUP BY molregno ORDER BY rank, molregno LIMIT ${cap}`,
      )
      .all({ t }) as Array<{ molregno: number; rank: number }>
  ).map((r) => ({ molregno: r.molregno, rank: r.rank }));
}

/** A names table as the sidecar writes it: trimmed and lower-cased by SQLite, in molregno order, with its text index. */
function namesDb(names: ReadonlyArray<{ molregno: number; kind: number; name: string }>): Db {
  const db = new Driver!(":memory:");
  db.exec("CREATE TABLE raw (name TEXT, molregno INTEGER, kind INTEGER)");
  const insert = db.prepare("INSERT INTO raw VALUES (?, ?, ?)") as unknown as { run(...a: unknown[]): void };
  for (const n of names) insert.run(n.name, n.molregno, n.kind);
  db.exec("CREATE TABLE names (key TEXT NOT NULL, molregno INTEGER NOT NULL, kind INTEGER NOT NULL)");
  db.exec("INSERT INTO names SELECT lower(trim(name)), molregno, kind FROM raw WHERE trim(name) <> '' ORDER BY molregno, kind");
  db.exec("CREATE INDEX ix_names ON names (key, molregno, kind)");
  db.exec(TEXT_INDEX_DDL);
  for (const sql of TEXT_INDEX_FILL) db.exec(sql);
  return db;
}

test("a prefix's key range ends at the least string above it, in code point order", () => {
  assert.equal(prefixEnd("abc"), "abd");
  assert.equal(prefixEnd("a\u{10FFFF}"), "b");
  assert.equal(prefixEnd("\u{10FFFF}"), null);
  assert.equal(prefixEnd("a\uD7FF"), "a\uE000", "past the surrogates");
  assert.equal(prefixEnd("z"), "{");
  assert.equal(trigramQuery("ab"), null, "a query under 3 characters has no trigram");
  assert.equal(trigramQuery('aaaa"b'), '"aaa" AND "aa""" AND "a""b"');
});

const ALPHABET = ["a", "b", "c", "A", "B", "-", " ", "1", "é", "É", "ß", "İ", "𝛼", '"', "(", "%", "_"];
const word = (max: number) => fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: max }).map((cs) => cs.join(""));

test("the search ranks as the scan it replaced, with and without the trigram index, at any cap", { skip }, () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ molregno: fc.integer({ min: 1, max: 40 }), kind: fc.constantFrom(0, 1), name: word(8) }), { minLength: 1, maxLength: 80 }),
      fc.array(
        fc.oneof(
          word(4),
          fc.tuple(fc.nat(), fc.nat(), fc.nat()).map(([i, a, b]) => [i, a, b] as const),
        ),
        { minLength: 1, maxLength: 8 },
      ),
      fc.constantFrom(1, 3, 10, 10_000),
      (names, queries, cap) => {
        const db = namesDb(names);
        try {
          for (const q of queries) {
            // A query is a random word or a slice of one of the names (with its case changed).
            let term: string;
            if (typeof q === "string") term = q;
            else {
              const chars = Array.from(names[q[0] % names.length]!.name);
              const from = q[1] % chars.length;
              term = chars.slice(from, from + 1 + (q[2] % 5)).join("");
              term = q[2] % 2 === 0 ? term.toUpperCase() : term;
            }
            if (term.trim() === "") continue;
            const expected = scan(db, term, cap);
            assert.deepEqual(searchNames(db, "main", term, true, cap), expected, `trigram index, query ${JSON.stringify(term)}`);
            assert.deepEqual(searchNames(db, "main", term, false, cap), expected, `scan in molregno order, query ${JSON.stringify(term)}`);
          }
        } finally {
          db.close();
        }
      },
    ),
    { numRuns: 150 },
  );
});

test("a common query stops at the cap; exact names rank first", { skip }, () => {
  const names = Array.from({ length: 500 }, (_, i) => ({ molregno: 500 - i, kind: i % 3 === 0 ? 0 : 1, name: `Imatinib ${i}` }));
  // Half the molecules have a second name with the same prefix (the prefix read in molregno order meets them twice).
  for (let i = 0; i < 500; i += 2) names.push({ molregno: 500 - i, kind: 1, name: `imatinib mesylate ${i}` });
  names.push({ molregno: 400, kind: 0, name: " IMATINIB " }, { molregno: 7, kind: 1, name: "imatinib" }, { molregno: 3, kind: 1, name: "imatinibum" });
  const db = namesDb(names);
  try {
    const hits = searchNames(db, "main", "Imatinib", true, 20);
    assert.deepEqual(hits.slice(0, 3), [
      { molregno: 400, rank: 0 },
      { molregno: 7, rank: 1 },
      { molregno: 1, rank: 2 },
    ]);
    assert.equal(hits.length, 20);
    assert.deepEqual(hits, scan(db, "Imatinib", 20));
    for (const cap of [1, 7, 100, 10_000]) assert.deepEqual(searchNames(db, "main", "imat", true, cap), scan(db, "imat", cap), `cap ${cap}`);
    assert.deepEqual(searchNames(db, "main", "tinib 4", true, 10_000), scan(db, "tinib 4", 10_000));
  } finally {
    db.close();
  }
});

test("a 1- or 2-character query: by the trigrams it starts, or by a scan when they are many", { skip }, () => {
  // "q" is followed by 100 different characters (more trigrams than an OR query takes), "zq" by 2, "ω" ends names.
  const names = Array.from({ length: 300 }, (_, i) => ({ molregno: 1000 - i, kind: 1, name: `q${String.fromCodePoint(0x4e00 + (i % 100))}x zq${i % 2} ω` }));
  names.push({ molregno: 5, kind: 0, name: "ω" }, { molregno: 6, kind: 1, name: "zq" }, { molregno: 7, kind: 1, name: "a-zq" });
  const db = namesDb(names);
  try {
    for (const term of ["q", "zq", "ω", "Q", " zq ", "x ", "q\u4e01", "ω\u0001", "\u0001"]) {
      for (const cap of [5, 10_000])
        assert.deepEqual(searchNames(db, "main", term, true, cap), scan(db, term, cap), `query ${JSON.stringify(term)}, cap ${cap}`);
    }
  } finally {
    db.close();
  }
});

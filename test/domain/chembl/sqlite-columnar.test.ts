/**
 * The dump worker's packed answers (src/domain/chembl/sqlite/columnar.ts): whatever crosses the thread
 * packed must read back exactly as the JSON text it replaces would have parsed, through a real structured
 * clone with the buffers transferred.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { RecordRows, packAnswer, unpack, type Packed } from "../../../src/domain/chembl/sqlite/columnar.js";

/** Packs, clones as postMessage would (buffers transferred), unpacks. */
function roundTrip(value: unknown): unknown {
  const { value: packed, transfer } = packAnswer(value);
  return unpack(structuredClone<Packed>(packed, { transfer }));
}

const viaJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? "null");

test("an activity page packs column-wise and reads back as its JSON would", () => {
  const rows = Array.from({ length: 300 }, (_, i) => ({
    activity_id: 10_000_000 + i,
    molecule_chembl_id: `CHEMBL${i % 7}`,
    pchembl_value: i % 11 === 0 ? null : 9.99 - i / 100,
    standard_units: i % 3 === 0 ? null : "nM",
    ligand_efficiency: i % 4 === 0 ? null : { bei: 20.1, le: i % 5 === 0 ? null : 0.4, lle: 3, sei: 11 },
    potential_duplicate: 0,
    // A mixed column (numbers and text) falls back to one value at a time.
    value: i % 2 === 0 ? "12.5" : 12.5,
  }));
  const body = { activities: rows, page_meta: { limit: 300, next: null, offset: 0, previous: null, total_count: 300 } };
  const { value: packed, transfer } = packAnswer(body);
  if (packed.t !== "o") throw new Error(`the body packs as ${packed.t}`);
  const list = packed.v[0]!;
  if (list.t !== "r") throw new Error(`the rows pack as ${list.t}, not one record list`);
  const kinds = Object.fromEntries(list.k.map((k, j) => [k, list.c[j]!.t]));
  assert.deepEqual(kinds, {
    activity_id: "n",
    molecule_chembl_id: "s",
    pchembl_value: "n",
    standard_units: "s",
    ligand_efficiency: "t",
    potential_duplicate: "n",
    value: "p",
  });
  const strings = list.c[1]!;
  assert.ok(strings.t === "s" && strings.d.length === 7, "each distinct string once");
  assert.ok(transfer.length > 0);
  assert.deepEqual(roundTrip(body), viaJson(body));
});

test("records held as rows of values write and read back as the objects they stand for", () => {
  const keys = ["activity_id", "standard_type", "ligand_efficiency", "__proto__"];
  const rows = [
    [1, "IC50", null, 0],
    [2, null, { le: 0.3, lle: null }, -0],
    [3, "Ki", { le: 0.5, lle: 2 }, Infinity],
  ];
  const body = { activities: new RecordRows(keys, rows), page_meta: { total_count: 3 } };
  const text = JSON.stringify(body);
  const objects = rows.map((r) => JSON.parse(`{${keys.map((k, j) => `${JSON.stringify(k)}: ${JSON.stringify(r[j])}`).join(", ")}}`) as unknown);
  assert.equal(text, JSON.stringify({ activities: objects, page_meta: { total_count: 3 } }));
  assert.deepEqual(roundTrip(body), JSON.parse(text));
  // A row JSON would write differently (an undefined value drops its key) goes the JSON way.
  const odd = {
    activities: new RecordRows(
      ["a", "b"],
      [
        [1, undefined],
        [2, 3],
      ],
    ),
  };
  assert.deepEqual(roundTrip(odd), viaJson(odd));
});

test("what JSON rewrites reads back rewritten: -0, NaN, infinities, undefined, non-plain objects", () => {
  const odd = [
    { a: -0, b: NaN, c: Infinity, d: undefined, e: "x" },
    { a: 1, b: -Infinity, c: 2, d: undefined, e: null },
  ];
  assert.deepEqual(roundTrip(odd), viaJson(odd));
  const sparse = { list: [1, undefined, "a", null, -0], when: new Date(0), nested: { gone: undefined, kept: [{ x: 1 }, { x: -0 }] } };
  assert.deepEqual(roundTrip(sparse), viaJson(sparse));
  // Records whose keys differ, or come in another order, are not one record list.
  const ragged = [{ a: 1, b: 2 }, { b: 2, a: 1 }, { a: 1 }];
  assert.deepEqual(roundTrip(ragged), viaJson(ragged));
  const proto = JSON.parse('{"__proto__": {"x": 1}, "rows": [{"__proto__": 1, "k": 2}, {"__proto__": 3, "k": 4}]}') as unknown;
  assert.deepEqual(roundTrip(proto), proto);
  assert.deepEqual(roundTrip(Buffer.from("ab")), viaJson(Buffer.from("ab")));
});

test("any JSON value, and lists of records drawn from a few shapes, read back as their JSON", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
      assert.deepEqual(roundTrip(v), viaJson(v));
    }),
    { numRuns: 300 },
  );
  const cell = fc.oneof(fc.constant(null), fc.double(), fc.integer(), fc.string(), fc.constantFrom(-0, "nM", "IC50"), fc.boolean());
  const record = fc.record({ a: cell, b: cell, c: fc.oneof(fc.constant(null), fc.record({ x: cell, y: cell })) });
  fc.assert(
    fc.property(fc.array(record, { maxLength: 40 }), (rows) => {
      assert.deepEqual(roundTrip({ rows }), viaJson({ rows }));
    }),
    { numRuns: 300 },
  );
});

/**
 * The tanimoto tool's two forms and their validation (schema and handler), bulk threshold/top_k/truncated
 * behaviour, per-item errors, and the ecfp4 tool's encoding. Similarities are checked against values
 * recomputed here from ecfp4's on-bit lists (set intersection over union), so no native RDKit is needed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createAjv } from "../../src/server/registry.js";
import { ToolError } from "../../src/domain/errors.js";
import { loadRDKit, round, wasmHeapBytes } from "../../src/domain/chem/rdkit.js";
import { ecfp4Tool } from "../../src/tools/ecfp4.js";
import { MAX_ECHO_LENGTH, MAX_INVALID_LISTED, MAX_LIST_ENTRY_ATOMS, tanimotoTool } from "../../src/tools/tanimoto.js";

const rdkit = await loadRDKit();
const progressCalls: Array<[number, number | undefined]> = [];
const ctx = { rdkit, progress: (p: number, total?: number) => void progressCalls.push([p, total]) };

interface Bulk {
  form: string;
  results: Array<{ index: number; smiles?: string; similarity: number }>;
  count_above_threshold: number;
  returned: number;
  truncated: boolean;
  compared: number;
  invalid_count: number;
  invalid: Array<{ index: number; smiles?: string; code: string; message: string }>;
  threshold: number;
  top_k: number;
}

const bulk = (args: Record<string, unknown>): Bulk => tanimotoTool.run(args, ctx) as unknown as Bulk;

function bitsOf(smiles: string, extra: Record<string, unknown> = {}): Set<number> {
  return new Set((ecfp4Tool.run({ smiles, ...extra }, ctx) as { on_bits: number[] }).on_bits);
}

/** Tanimoto from two on-bit sets, computed independently of the tool. */
function setTanimoto(a: Set<number>, b: Set<number>): number {
  let common = 0;
  for (const x of a) if (b.has(x)) common++;
  return common / (a.size + b.size - common);
}

function assertToolError(fn: () => unknown, code: string, pattern?: RegExp): ToolError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ToolError, `a ToolError, not ${String(err)}`);
    assert.equal(err.code, code);
    if (pattern) assert.match(err.message, pattern);
    return err;
  }
  assert.fail(`expected ${code}`);
}

const ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O";
const SALICYLIC = "OC(=O)c1ccccc1O";
const CAFFEINE = "Cn1cnc2c1c(=O)n(C)c(=O)n2C";
const IBUPROFEN = "CC(C)Cc1ccc(cc1)C(C)C(=O)O";

test("ecfp4: hex, popcount and on_bits describe the same bits (bit i in byte i>>3, lowest bit first)", () => {
  const out = ecfp4Tool.run({ smiles: ASPIRIN }, ctx) as { fingerprint: string; popcount: number; on_bits: number[]; n_bits: number; radius: number };
  assert.equal(out.fingerprint.length, 512);
  assert.equal(out.radius, 2);
  assert.equal(out.n_bits, 2048);
  assert.equal(out.popcount, 24, "aspirin ECFP4 popcount (RDKit)");
  const bytes = Buffer.from(out.fingerprint, "hex");
  const fromHex: number[] = [];
  for (let i = 0; i < 2048; i++) if (bytes[i >> 3]! & (1 << (i & 7))) fromHex.push(i);
  assert.deepEqual(fromHex, out.on_bits);
  assert.deepEqual(
    [...out.on_bits].sort((a, b) => a - b),
    out.on_bits,
    "sorted",
  );
  const small = ecfp4Tool.run({ smiles: ASPIRIN, radius: 1, n_bits: 64 }, ctx) as { fingerprint: string; on_bits: number[] };
  assert.equal(small.fingerprint.length, 16);
  assert.ok(small.on_bits.every((b) => b < 64));
});

test("ecfp4 schema: radius 0-6, n_bits a power of two 64-16384", () => {
  const validate = createAjv().compile(ecfp4Tool.inputSchema);
  assert.equal(validate({ smiles: "C", radius: 6, n_bits: 16384, use_chirality: true }), true);
  for (const bad of [{ radius: 7 }, { radius: -1 }, { n_bits: 1000 }, { n_bits: 32 }, { n_bits: 32768 }, { useChirality: true }]) {
    assert.equal(validate({ smiles: "C", ...bad }), false, JSON.stringify(bad));
  }
});

test("pair form: similarity (3 dp) and similarity_percent (2 dp) from the two fingerprints", () => {
  for (const [a, b] of [
    [ASPIRIN, SALICYLIC],
    [ASPIRIN, CAFFEINE],
    [IBUPROFEN, ASPIRIN],
  ] as const) {
    const out = tanimotoTool.run({ smiles1: a, smiles2: b }, ctx) as { form: string; similarity: number; similarity_percent: number };
    const expected = setTanimoto(bitsOf(a), bitsOf(b));
    assert.equal(out.form, "pair");
    assert.equal(out.similarity, round(expected, 3));
    assert.equal(out.similarity_percent, round(expected * 100, 2));
  }
  const self = tanimotoTool.run({ smiles1: ASPIRIN, smiles2: "O=C(O)c1ccccc1OC(C)=O" }, ctx) as { similarity: number };
  assert.equal(self.similarity, 1, "the same molecule written differently");
  const r3 = tanimotoTool.run({ smiles1: ASPIRIN, smiles2: SALICYLIC, radius: 3, n_bits: 1024 }, ctx) as { similarity: number; radius: number; n_bits: number };
  assert.equal(r3.similarity, round(setTanimoto(bitsOf(ASPIRIN, { radius: 3, n_bits: 1024 }), bitsOf(SALICYLIC, { radius: 3, n_bits: 1024 })), 3));
  assert.deepEqual([r3.radius, r3.n_bits], [3, 1024]);
});

test("pair form: an invalid SMILES is INVALID_SMILES naming the argument", () => {
  const err = assertToolError(() => tanimotoTool.run({ smiles1: ASPIRIN, smiles2: "C1CC" }, ctx), "INVALID_SMILES");
  assert.equal(err.details.argument, "smiles2");
});

test("exactly one form: both, neither, or half a form is INVALID_ARGUMENTS (handler and schema)", () => {
  assertToolError(
    () => tanimotoTool.run({ smiles1: ASPIRIN, smiles2: CAFFEINE, smiles: ASPIRIN, smiles_list: [CAFFEINE] }, ctx),
    "INVALID_ARGUMENTS",
    /not both/,
  );
  assertToolError(() => tanimotoTool.run({ smiles1: ASPIRIN, smiles2: CAFFEINE, top_k: 5 }, ctx), "INVALID_ARGUMENTS", /not both/);
  assertToolError(() => tanimotoTool.run({}, ctx), "INVALID_ARGUMENTS", /smiles1 and smiles2.*or smiles and smiles_list/);
  assertToolError(() => tanimotoTool.run({ radius: 2 }, ctx), "INVALID_ARGUMENTS");
  assertToolError(() => tanimotoTool.run({ smiles1: ASPIRIN }, ctx), "INVALID_ARGUMENTS", /smiles2 is missing/);
  assertToolError(() => tanimotoTool.run({ smiles_list: [ASPIRIN] }, ctx), "INVALID_ARGUMENTS", /smiles is missing/);
  assertToolError(() => tanimotoTool.run({ threshold: 0.5 }, ctx), "INVALID_ARGUMENTS", /smiles is missing/);

  const validate = createAjv().compile(tanimotoTool.inputSchema);
  assert.equal(validate({ smiles1: ASPIRIN, smiles2: CAFFEINE }), true);
  assert.equal(validate({ smiles: ASPIRIN, smiles_list: [CAFFEINE], threshold: 0.3, top_k: 10, radius: 3, n_bits: 4096 }), true);
  assert.equal(validate({ smiles1: ASPIRIN }), false, "pair without smiles2");
  assert.equal(validate({ smiles: ASPIRIN }), false, "query without list");
  assert.equal(validate({ smiles: ASPIRIN, smiles_list: [] }), false, "empty list");
  assert.equal(validate({ smiles: ASPIRIN, smiles_list: Array(10_001).fill("C") }), false, "more than 10,000");
  assert.equal(validate({ smiles: ASPIRIN, smiles_list: ["C"], top_k: 1001 }), false, "top_k above 1000");
  assert.equal(validate({ smiles: ASPIRIN, smiles_list: ["C"], threshold: 1.5 }), false, "threshold above 1");
  assert.equal(validate({ smiles: ASPIRIN, smiles_list: ["C"], use_chirality: true }), false, "no chirality option here");
});

test("bulk form: ranking, threshold, top_k, truncated and count_above_threshold", () => {
  const list = [CAFFEINE, SALICYLIC, ASPIRIN, IBUPROFEN, SALICYLIC, "CCO", ASPIRIN];
  const query = bitsOf(ASPIRIN);
  const sims = list.map((s) => setTanimoto(query, bitsOf(s)));
  const order = list.map((_, i) => i).sort((a, b) => sims[b]! - sims[a]! || a - b);

  const all = bulk({ smiles: ASPIRIN, smiles_list: list });
  assert.equal(all.form, "bulk");
  assert.deepEqual(
    all.results.map((r) => r.index),
    order,
    "similarity descending, ties in list order",
  );
  assert.deepEqual(
    all.results.map((r) => r.similarity),
    order.map((i) => round(sims[i]!, 3)),
  );
  assert.deepEqual(
    all.results.slice(0, 2).map((r) => r.index),
    [2, 6],
    "equal similarities keep list order",
  );
  assert.equal(all.results[0]!.smiles, ASPIRIN);
  assert.equal(all.count_above_threshold, 7);
  assert.equal(all.truncated, false);
  assert.equal(all.threshold, 0);
  assert.equal(all.top_k, 100);
  assert.equal(all.compared, 7);
  assert.deepEqual(all.invalid, []);

  const cut = bulk({ smiles: ASPIRIN, smiles_list: list, top_k: 3 });
  assert.deepEqual(
    cut.results.map((r) => r.index),
    order.slice(0, 3),
  );
  assert.equal(cut.returned, 3);
  assert.equal(cut.count_above_threshold, 7);
  assert.equal(cut.truncated, true);

  const threshold = sims[1]!; // salicylic acid's similarity: entries at exactly the threshold are kept
  const above = bulk({ smiles: ASPIRIN, smiles_list: list, threshold });
  const expected = order.filter((i) => sims[i]! >= threshold);
  assert.deepEqual(
    above.results.map((r) => r.index),
    expected,
  );
  assert.equal(above.count_above_threshold, expected.length);
  assert.ok(above.results.every((r) => r.similarity >= round(threshold, 3)));
  assert.equal(above.truncated, false);

  const exact = bulk({ smiles: ASPIRIN, smiles_list: list, threshold: 1, top_k: 1 });
  assert.deepEqual(
    exact.results.map((r) => r.index),
    [2],
  );
  assert.equal(exact.count_above_threshold, 2);
  assert.equal(exact.truncated, true);

  const none = bulk({ smiles: ASPIRIN, smiles_list: ["CCO"], threshold: 0.99 });
  assert.deepEqual(none.results, []);
  assert.equal(none.count_above_threshold, 0);
  assert.equal(none.truncated, false);
});

test("bulk form: unusable list entries are reported per item and do not fail the call", () => {
  const huge = "C".repeat(10_001);
  // A 1,000-atom chain: past the list-entry cap.
  const chain = "C".repeat(1000);
  const longValid = "C".repeat(MAX_ECHO_LENGTH + 1);
  const atCap = "C".repeat(MAX_LIST_ENTRY_ATOMS);
  const list = [ASPIRIN, "C1CC", "", huge, "c1cccc1", longValid, "[Xx]", SALICYLIC, chain, atCap];
  const out = bulk({ smiles: ASPIRIN, smiles_list: list });
  assert.equal(out.compared, 4, "an entry at the cap is compared");
  assert.equal(out.invalid_count, 6);
  assert.deepEqual(
    out.invalid.map((e) => [e.index, e.code]),
    [
      [1, "INVALID_SMILES"],
      [2, "INVALID_SMILES"],
      [3, "MOLECULE_TOO_LARGE"],
      [4, "INVALID_SMILES"],
      [6, "INVALID_SMILES"],
      [8, "MOLECULE_TOO_LARGE"],
    ],
  );
  assert.match(out.invalid[5]!.message, /at most 700/);
  assert.equal(out.invalid[0]!.smiles, "C1CC");
  assert.match(out.invalid[0]!.message, /smiles_list\[1\]|C1CC/);
  assert.equal(out.invalid[2]!.smiles, undefined, "long entries are not echoed");
  assert.deepEqual(
    out.results.map((r) => r.index).sort((a, b) => a - b),
    [0, 5, 7, 9],
  );
  assert.equal(out.results.find((r) => r.index === 5)!.smiles, undefined, "long SMILES not echoed in results either");
  assert.ok(out.results.every((r) => !out.invalid.some((e) => e.index === r.index)));

  const many = bulk({ smiles: ASPIRIN, smiles_list: [...Array(MAX_INVALID_LISTED + 20).fill("C1CC"), ASPIRIN] });
  assert.equal(many.invalid_count, MAX_INVALID_LISTED + 20);
  assert.equal(many.invalid.length, MAX_INVALID_LISTED);
  assert.deepEqual(
    many.results.map((r) => r.index),
    [MAX_INVALID_LISTED + 20],
  );
});

test("bulk form: an invalid query is fatal (INVALID_SMILES on smiles)", () => {
  const err = assertToolError(() => bulk({ smiles: "C1CC", smiles_list: [ASPIRIN] }), "INVALID_SMILES");
  assert.equal(err.details.argument, "smiles");
});

test("bulk form: 2,000 entries report progress and leave the WASM heap flat", () => {
  const list = Array.from({ length: 2000 }, (_, i) => (i % 10 === 3 ? "C1CC" : [ASPIRIN, CAFFEINE, IBUPROFEN, SALICYLIC][i % 4]!));
  bulk({ smiles: ASPIRIN, smiles_list: list }); // warm-up
  const before = wasmHeapBytes();
  progressCalls.length = 0;
  const out = bulk({ smiles: ASPIRIN, smiles_list: list, top_k: 1000 });
  assert.equal(out.invalid_count, 200);
  assert.equal(out.count_above_threshold, 1800);
  assert.equal(out.returned, 1000);
  assert.equal(out.truncated, true);
  assert.ok(progressCalls.length >= 4, "progress was reported");
  assert.deepEqual(progressCalls.at(-1), [2000, 2000]);
  assert.ok(
    progressCalls.every(([p, total], k) => total === 2000 && (k === 0 || p > progressCalls[k - 1]![0])),
    "progress increases",
  );
  for (let k = 0; k < 3; k++) bulk({ smiles: ASPIRIN, smiles_list: list });
  assert.ok(wasmHeapBytes() - before < 2 * 2 ** 20, `heap grew ${wasmHeapBytes() - before} bytes`);
});

test("bulk form: 10,000 molecules fit the 55 s budget", (t) => {
  const nci = "/usr/share/RDKit/Data/NCI/first_5K.smi";
  const source = existsSync(nci)
    ? readFileSync(nci, "utf8")
        .split("\n")
        .filter((l) => l.trim().length > 0)
        .map((l) => l.trim().split(/\s+/)[0]!)
    : [ASPIRIN, CAFFEINE, IBUPROFEN, SALICYLIC, "Cc1ccc(cc1Nc1nccc(n1)c1cccnc1)NC(=O)c1ccc(cc1)CN1CCN(C)CC1"];
  const list = Array.from({ length: 10_000 }, (_, i) => source[i % source.length]!);
  const t0 = performance.now();
  const out = bulk({ smiles: ASPIRIN, smiles_list: list, top_k: 1000 });
  const ms = performance.now() - t0;
  t.diagnostic(
    `10,000 entries (${existsSync(nci) ? "NCI first_5K twice" : "five drugs repeated"}): ${(ms / 1000).toFixed(2)} s, ${((ms * 1000) / 10_000).toFixed(0)} µs per entry; ${out.compared} compared, ${out.invalid_count} invalid`,
  );
  assert.equal(out.compared + out.invalid_count, 10_000);
  assert.equal(out.returned, 1000);
  assert.ok(ms < tanimotoTool.budgetMs, `took ${ms.toFixed(0)} ms`);
  assert.ok(JSON.stringify(out).length < 400_000, "the answer stays well under the 1 MiB response limit (sent twice: text and structured)");
});

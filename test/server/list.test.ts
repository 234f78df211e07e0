/**
 * Lists on per-molecule tools (issue 14, items 1-3): `smiles_list` gives { results, summary } whose every
 * entry equals the single call's result, runs as one call (no BUSY with a small queue), is stopped by
 * cancellation, answers TIMEOUT for what the budget did not reach, trims with `fields`, and stays within
 * the response limit (next_index).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { listAnswer } from "../../src/server/list.js";
import { shapeOutcome, type ToolOutcome } from "../../src/server/shape.js";
import { allTools } from "../../src/tools/index.js";
import { silentLogger } from "../../src/logger.js";
import { CancelledError } from "../../src/contract/errors.js";
import { MAX_RESPONSE_BYTES } from "../../src/contract/limits.js";
import { MAX_ANSWER_BYTES } from "../../src/server/answer-cap.js";
import { skipOracle } from "../helpers/oracle.js";

// Workers copy the environment when they start: test_sleep joins theirs.
process.env.CHEMATIC_TEST_TOOLS = "1";

const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const info = { name: "chematic-mcp", version: "test" };
const pool = new WorkerPool({ size: 2 });
const server = new McpServer({ tools: allTools({ CHEMATIC_TEST_TOOLS: "1" }), pool, info, logger: silentLogger });
after(() => pool.close());

const call = (name: string, args: Record<string, unknown>, signal = new AbortController().signal, progress?: (p: number, t?: number) => void) =>
  server.runTool(name, args, { signal, progress });

type Item = { index: number; input: string; result?: Record<string, unknown>; error?: { code: string; message: string } };
type ListValue = { results: Item[]; summary: { count: number; succeeded: number; failed: number; returned?: number; next_index?: number }; note?: string };

function listValue(outcome: ToolOutcome): ListValue {
  assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value as unknown as ListValue;
}

/** Every entry's answer, following next_index when one answer could not hold them all. */
async function wholeList(tool: string, list: string[]): Promise<ListValue> {
  const results: Item[] = [];
  let succeeded = 0;
  for (let from = 0; from < list.length;) {
    const value = listValue(await call(tool, { smiles_list: list.slice(from), echo_input: true }));
    results.push(...value.results.map((r) => ({ ...r, index: r.index + from })));
    if (from === 0) succeeded = value.summary.succeeded;
    const next = value.summary.next_index;
    if (next === undefined) break;
    assert.ok(next > 0 && value.note !== undefined);
    from += next;
  }
  return { results, summary: { count: list.length, succeeded, failed: list.length - succeeded } };
}

function nciSmiles(count: number): string[] | undefined {
  if (!existsSync(NCI)) return undefined;
  return readFileSync(NCI, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .slice(0, count)
    .map((l) => l.split(/\s+/)[0] as string);
}

test(
  "a 250-entry list on calc_properties, sa_score, pains_check, standardize and admet_profile equals the single calls, entry by entry",
  { timeout: 600_000 },
  async (t) => {
    const nci = nciSmiles(240);
    if (!nci) return skipOracle(t, `${NCI} is absent (RDKit's data files)`);
    const invalid = ["C1CC", "not a smiles", "c1cccc1", "C(C)(C)(C)(C)C", "", "Xx", "CC)", "N1", "[Fe+9]", "C=1"];
    const list = [...nci.slice(0, 120), ...invalid, ...nci.slice(120)];
    assert.equal(list.length, 250);
    for (const tool of ["calc_properties", "sa_score", "pains_check", "standardize", "admet_profile"]) {
      const value = await wholeList(tool, list);
      assert.equal(value.results.length, 250, tool);
      assert.equal(value.summary.count, 250);
      assert.ok(value.summary.failed >= invalid.length - 1, `${tool}: the invalid entries fail (${value.summary.failed})`);
      assert.equal(value.summary.succeeded + value.summary.failed, 250);
      for (let start = 0; start < list.length; start += 32) {
        const singles = await Promise.all(list.slice(start, start + 32).map((smiles) => call(tool, { smiles })));
        singles.forEach((single, k) => {
          const item = value.results[start + k] as Item;
          assert.equal(item.index, start + k);
          assert.equal(item.input, list[start + k]);
          if (single.ok) assert.deepEqual(item.result, single.value, `${tool} entry ${start + k}`);
          else {
            assert.equal(item.error?.code, single.error.code, `${tool} entry ${start + k}`);
            if (single.error.code !== "INVALID_ARGUMENTS") assert.equal(item.error?.message, single.error.message);
          }
        });
      }
    }
  },
);

test("smiles and smiles_list: exactly one; fields only with smiles_list", async () => {
  for (const args of [
    {},
    { smiles: "CCO", smiles_list: ["CCO"] },
    { smiles: "CCO", fields: ["mw"] },
    { smiles_list: [] },
    { smiles_list: ["CCO"], fields: ["nope"] },
  ]) {
    const outcome = await call("calc_properties", args);
    assert.equal(outcome.ok ? "ok" : outcome.error.code, "INVALID_ARGUMENTS", JSON.stringify(args));
  }
  // The single answer is unchanged.
  const single = await call("calc_properties", { smiles: "CCO" });
  assert.ok(single.ok && "mw" in single.value && !("results" in single.value));
});

test("a list is one call for the queue: 300 entries with no queue at all never answer BUSY", { timeout: 120_000 }, async () => {
  const small = new WorkerPool({ size: 2, maxQueue: 0 });
  const tiny = new McpServer({ tools: allTools({}), pool: small, info, logger: silentLogger });
  try {
    await small.ready();
    const progress: number[] = [];
    const outcome = await tiny.runTool(
      "canonical_smiles",
      { smiles_list: Array.from({ length: 300 }, (_, i) => "C".repeat((i % 20) + 1)) },
      {
        signal: new AbortController().signal,
        progress: (p) => progress.push(p),
      },
    );
    const value = listValue(outcome);
    assert.equal(value.summary.succeeded, 300);
    assert.equal((value.results[4]?.result as { canonical: string }).canonical, "CCCCC");
    assert.ok(progress.length > 1, `progress per chunk (${progress.length})`);
    assert.equal(progress.at(-1), 300);
  } finally {
    await small.close();
  }
});

test("cancelling a list stops it: the call rejects with CancelledError and returns nothing", { timeout: 120_000 }, async () => {
  const controller = new AbortController();
  const list = Array.from({ length: 5_000 }, (_, i) => `c1ccccc1${"C".repeat(i % 30)}O`);
  const started = Date.now();
  await assert.rejects(
    call("admet_profile", { smiles_list: list }, controller.signal, () => controller.abort()),
    (e: unknown) => e instanceof CancelledError,
  );
  assert.ok(Date.now() - started < 20_000, "stopped well before the list could finish");
  // The pool still answers afterwards.
  const after = await call("canonical_smiles", { smiles: "OCC" });
  assert.ok(after.ok && after.value.canonical === "CCO");
});

test("a list cut by its budget answers TIMEOUT for the entries not done and returns those that finished", { timeout: 60_000 }, async () => {
  const items = Array.from({ length: 12 }, () => ({ ms: 400 }));
  const started = Date.now();
  const outcomes = await pool.runList("test_sleep", items, { budgetMs: 1_000, chunkSize: 1 });
  assert.ok(Date.now() - started < 5_000);
  const done = outcomes.filter((o) => o.ok).length;
  const timedOut = outcomes.filter((o) => !o.ok && o.error.code === "TIMEOUT").length;
  assert.ok(done >= 2, `some finished (${done})`);
  assert.ok(timedOut >= 4, `the rest answered TIMEOUT (${timedOut})`);
  assert.equal(done + timedOut, 12);
  // In order: what finished comes first.
  assert.ok(outcomes.slice(0, 2).every((o) => o.ok));
});

test("fields keeps only the named keys in each result", async () => {
  const value = listValue(await call("calc_properties", { smiles_list: ["CCO", "bad(", "c1ccccc1"], fields: ["mw", "qed"] }));
  assert.deepEqual(Object.keys(value.results[0]?.result ?? {}), ["mw", "qed"]);
  assert.equal(value.results[1]?.error?.code, "INVALID_SMILES");
  assert.deepEqual(value.summary, { count: 3, succeeded: 2, failed: 1 });
});

test("past what a host takes (80,000 bytes) entries are not returned: next_index says where to continue, the note says so", { timeout: 300_000 }, async (t) => {
  // Unit: a small limit.
  const outcomes = Array.from({ length: 100 }, (_, i) => ({ ok: true as const, value: { n: i, pad: "x".repeat(100) } }));
  const cut = listAnswer(
    outcomes.map((_, i) => `C${i}`),
    outcomes,
    undefined,
    { limit: 40_000, echo: true },
  ) as unknown as ListValue;
  assert.ok(cut.results.length > 0 && cut.results.length < 100);
  assert.equal(cut.summary.next_index, cut.results.length);
  assert.equal(cut.summary.returned, cut.results.length);
  assert.match(cut.note ?? "", /not returned/);
  // A real call: 3,000 full calc_properties results are well past 1 MiB (about 1.2 KB each, counted twice).
  const nci = nciSmiles(3_000);
  if (!nci) return skipOracle(t, `${NCI} is absent (RDKit's data files)`);
  const outcome = await call("calc_properties", { smiles_list: nci });
  const value = listValue(outcome);
  assert.ok(
    value.summary.next_index !== undefined && value.summary.next_index > 100 && value.summary.next_index < nci.length,
    `next_index ${value.summary.next_index}`,
  );
  assert.equal(value.summary.count, nci.length);
  assert.ok(Buffer.byteLength(JSON.stringify(value)) <= MAX_ANSWER_BYTES, "the structured answer fits what a host takes");
  assert.match(value.note ?? "", /Send the entries from index \d+ on/);
  for (const version of ["2025-06-18", "2024-11-05", "2026-07-28"] as const) {
    const message = JSON.stringify({ jsonrpc: "2.0", id: 1, result: shapeOutcome(version, outcome, info) });
    assert.ok(Buffer.byteLength(message) <= MAX_RESPONSE_BYTES, `${version}: ${Buffer.byteLength(message)} bytes`);
  }
  // With fields (and no entry repeated) a list of 2,000 fits whole.
  const trimmed = listValue(await call("calc_properties", { smiles_list: nci.slice(0, 2_000), fields: ["qed"] }));
  assert.equal(trimmed.results.length, 2_000);
  assert.equal(trimmed.summary.next_index, undefined);
});

test("every chemistry tool whose input is one molecule takes smiles_list; tanimoto, find_mcs, depict and the set tools (cluster_molecules, pick_diverse, rgroup_decompose, matched_pairs, enumerate_reaction) keep their own inputs", () => {
  const listed: string[] = [];
  for (const tool of server.registry.tools()) {
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
    const declared = tool.kind === "chem" && tool.list !== undefined;
    assert.equal("smiles_list" in properties && declared, declared, tool.name);
    if (declared) listed.push(tool.name);
    else if (tool.kind === "chem" && !tool.testOnly)
      assert.ok(
        [
          "tanimoto",
          "find_mcs",
          "depict",
          "moljson_to_smiles",
          "cluster_molecules",
          "pick_diverse",
          "rgroup_decompose",
          "matched_pairs",
          "enumerate_reaction",
        ].includes(tool.name),
        `${tool.name} has no list`,
      );
  }
  // The 17 of issue 14, and murcko_scaffold, druglikeness_filters and enumerate_stereoisomers (issue 16).
  assert.equal(listed.length, 20);
});

/**
 * Giant molecules (long chains, huge rings, many fragments, deep branches, long ring-closure lists, a
 * SMILES at the schema's maxLength) through every chemistry tool that takes a SMILES, straight through
 * the worker pool, and a few through a real server process. Every call must end in a result that matches
 * the outputSchema or a declared typed error (MOLECULE_TOO_LARGE, TIMEOUT, ...): never an internal error,
 * never a dead pool or process. A molecule whose parse exhausts the engine (the worker is replaced) goes
 * through three tools only, since each such call costs a worker restart. The tool calls share one
 * time budget (FUZZ_GIANT_MS, default 20 s, times FUZZ_SCALE), spread round-robin over the molecules.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../src/domain/errors.js";
import { WorkerPool } from "../../src/server/pool.js";
import { allTools } from "../../src/tools/index.js";
import type { ChemTool } from "../../src/contract/tool.js";
import { ServerProcess } from "../helpers/server-process.js";
import { FUZZ_SCALE, giantMolecules } from "./arbitraries.js";
import { checkedRun, smilesArgs, type Outcome } from "./outcomes.js";

const CALL_BUDGET_MS = 10_000;
const TOTAL_MS = Number(process.env.FUZZ_GIANT_MS ?? 12_000) * FUZZ_SCALE;
const TRAP_TOOLS = ["canonical_smiles", "calc_properties", "ecfp4"];

describe("giant molecules through every chemistry tool (worker pool)", () => {
  const tools = allTools({}).filter((t): t is ChemTool => t.kind === "chem" && !t.testOnly);
  let pool: WorkerPool;

  before(async () => {
    pool = new WorkerPool({ size: 2, maxQueue: 1_000, log: () => {} });
    await pool.ready();
  });

  after(async () => {
    try {
      const value = (await pool.run("canonical_smiles", { smiles: "OCC" }, { budgetMs: 20_000 }).catch(async (e: unknown) => {
        const heaps = await pool.heapBytes();
        throw new Error(
          `the pool no longer answers a small molecule (WASM heaps ${heaps.map((b) => (b / 2 ** 20).toFixed(0)).join(", ")} MiB): ${JSON.stringify(e instanceof ToolError ? e.toPayload() : String(e))}`,
        );
      })) as { canonical: string };
      assert.equal(value.canonical, "CCO", "the pool still answers");
    } finally {
      // Always: live worker threads would keep the test process from exiting.
      await pool.close();
    }
  });

  test("each giant ends in a result or a declared error, in every tool", { timeout: TOTAL_MS + 120_000 }, async (t) => {
    const parse = tools.find((x) => x.name === "parse_smiles")!;
    const giants = giantMolecules();
    // First every giant through parse_smiles: does it parse, is it refused, or does it exhaust the engine?
    const firsts: Outcome[] = [];
    for (const giant of giants) firsts.push(await checkedRun(pool, parse, { smiles: giant.smiles }, CALL_BUDGET_MS));
    const deadline = Date.now() + TOTAL_MS;
    // Then the tools, round-robin over the giants (each giant's tools in a different order), so the time
    // budget is spread over all of them rather than spent on the first few.
    const perGiant = giants.map((giant, g) => {
      const first = firsts[g]!;
      const trapped = !first.ok && first.reason === "engine_stack_exhausted";
      const chosen = (trapped ? tools.filter((x) => TRAP_TOOLS.includes(x.name)) : tools).filter((x) => x !== parse);
      const rotated = chosen.map((_, i) => chosen[(i + g * 5) % chosen.length]!);
      return rotated.map((tool) => ({ giant: g, tool, args: smilesArgs(tool, giant.smiles) })).filter((j) => j.args !== undefined);
    });
    const queue: Array<{ giant: number; tool: ChemTool; args?: Record<string, unknown> }> = [];
    for (let i = 0; perGiant.some((jobs) => i < jobs.length); i++) for (const jobs of perGiant) if (i < jobs.length) queue.push(jobs[i]!);
    const total = queue.length;
    let made = 0;
    const outcomes = giants.map(() => new Map<string, number>());
    // Two calls at a time, one per worker.
    await Promise.all(
      [0, 1].map(async () => {
        for (let job = queue.shift(); job && Date.now() < deadline; job = queue.shift()) {
          made++;
          const r = await checkedRun(pool, job.tool, job.args!, CALL_BUDGET_MS);
          const key = r.ok ? "ok" : r.code;
          outcomes[job.giant]!.set(key, (outcomes[job.giant]!.get(key) ?? 0) + 1);
        }
      }),
    );
    giants.forEach((giant, g) => {
      const first = firsts[g]!;
      t.diagnostic(
        `${giant.name}: parse_smiles ${first.ok ? "ok" : `${first.code}${first.reason ? ` (${String(first.reason)})` : ""}`}; ${JSON.stringify(Object.fromEntries(outcomes[g]!))}`,
      );
    });
    t.diagnostic(`${made} of ${total} tool calls made within the ${TOTAL_MS} ms budget`);
  });
});

describe("giant molecules and giant requests through a real server process", () => {
  let server: ServerProcess;
  let id = 0;

  before(() => {
    server = new ServerProcess({ CHEMATIC_WORKERS: "2", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" });
  });

  after(async () => {
    assert.equal(server.child.exitCode, null, "the server never exited");
    assert.equal(await server.close(), 0);
    for (const line of server.lines) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, "2.0");
  });

  async function call(name: string, args: Record<string, unknown>): Promise<{ code?: string; rpc?: number; value?: Record<string, unknown> }> {
    const r = await server.modernCall(++id, name, args);
    if (r.error) {
      assert.notEqual(r.error.code, -32603, `${name}: Internal error: ${JSON.stringify(r.error)}`);
      return { rpc: r.error.code };
    }
    const structured = r.result!.structuredContent as Record<string, unknown>;
    if (r.result!.isError) return { code: (structured.error as { code: string }).code };
    return { value: structured };
  }

  test("a chain past RDKit's linked 64 KiB stack is answered right, and so is the next call", { timeout: 60_000 }, async () => {
    // 1,000 atoms need about 110 KiB of engine stack to write; the workers give RDKit 8 MiB (engine-stack.ts).
    assert.equal((await call("canonical_smiles", { smiles: "C".repeat(1_000) })).value?.canonical, "C".repeat(1_000));
    assert.equal((await call("canonical_smiles", { smiles: "OCC" })).value?.canonical, "CCO");
  });

  test("SMILES at the schema's maxLength and one character over", { timeout: 60_000 }, async () => {
    const max = `${"C.".repeat(49_999)}CC`;
    assert.equal(max.length, 100_000);
    assert.equal((await call("calc_properties", { smiles: max })).code, "MOLECULE_TOO_LARGE");
    assert.equal((await call("calc_properties", { smiles: `${max}C` })).code, "INVALID_ARGUMENTS");
  });

  test("tanimoto with 10,000 molecules in one request", { timeout: 90_000 }, async () => {
    const list = Array.from({ length: 10_000 }, (_, i) => (i % 3 === 0 ? "c1ccccc1O" : i % 3 === 1 ? "CCN(CC)CC" : "C1CC"));
    const r = await call("tanimoto", { smiles: "c1ccccc1N", smiles_list: list, top_k: 5 });
    assert.ok(r.value !== undefined || r.code === "TIMEOUT", JSON.stringify(r).slice(0, 300));
  });

  test("a salt of 3,000 ion pairs (6,000 atoms) is answered once", { timeout: 60_000 }, async () => {
    const fragments = Array.from({ length: 3_000 }, () => "[Na+].[Cl-]").join(".");
    const r = await call("parse_smiles", { smiles: fragments });
    assert.ok(r.value !== undefined || r.code !== undefined, JSON.stringify(r).slice(0, 300));
    const counts = server.messages.filter((m) => m.id === id).length;
    assert.equal(counts, 1);
  });
});

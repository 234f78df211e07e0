/**
 * The ChEMBL configuration takes effect (issue 13, item 13), against the fake: CHEMBL_DEFAULT_LIMIT is the
 * rows of a page given no limit (25 by default), CHEMBL_MAX_PAGE_SIZE the limit of every upstream page of a
 * walk, and CHEMBL_SPILL_DEADLINE_MS the spill walk's deadline, held to 54 s unless the call carries a
 * progress token, in which case the server gives the call the longer budget too.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import type { ChemblService } from "../../src/domain/chembl/service.js";
import { createChemblGetBioactivitiesTool } from "../../src/tools/chembl_get_bioactivities.js";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { createLogger } from "../../src/logger.js";
import type { ServiceTool } from "../../src/contract/tool.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { BULK_TARGET, addBulkActivities } from "../fixtures/chembl/bulk.js";
import { chemblTools, ok, serviceContext, testService } from "../fixtures/chembl/harness.js";

let fake: FakeChembl;
let removeBulk: () => void;
let manager: CanvasManager;
const off = new CanvasManager({ enabled: false, dir: null, maxSpillRows: 50_000 });
const bio = (s: ChemblService, m: CanvasManager) =>
  createChemblGetBioactivitiesTool(
    () => s,
    () => m,
  );

before(async () => {
  fake = await new FakeChembl("new").start();
  removeBulk = addBulkActivities(2_500, 40);
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
});
after(async () => {
  removeBulk();
  await manager.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const limits = (path: string) => fake.requestsTo(path).map((r) => Number(r.query.get("limit")));

describe("CHEMBL_DEFAULT_LIMIT", () => {
  test("a page given no limit holds 25 rows by default, and CHEMBL_DEFAULT_LIMIT rows when set", async () => {
    const byDefault = await ok(bio(testService(fake), off), { target_chembl_id: BULK_TARGET });
    assert.equal(byDefault.value.returned, 25);
    const seven = await ok(bio(testService(fake, { defaultLimit: 7 }), off), { target_chembl_id: BULK_TARGET });
    assert.equal(seven.value.returned, 7);
    const given = await ok(bio(testService(fake, { defaultLimit: 7 }), off), { target_chembl_id: BULK_TARGET, limit: 30 });
    assert.equal(given.value.returned, 30, "an explicit limit wins");
  });

  test("the searches ask ChEMBL for CHEMBL_DEFAULT_LIMIT rows when given no limit", async () => {
    const tools = chemblTools(testService(fake, { defaultLimit: 7 }));
    await ok(tools.searchMolecules, { query: "aspirin" });
    await ok(tools.searchTargets, { query: "kinase" });
    assert.ok(limits("molecule/search").length > 0 && limits("molecule/search").every((l) => l === 7), JSON.stringify(limits("molecule/search")));
    assert.ok(limits("target").length > 0 && limits("target").every((l) => l === 7), JSON.stringify(limits("target")));
  });
});

describe("CHEMBL_MAX_PAGE_SIZE", () => {
  test("a spill walks the view in pages of CHEMBL_MAX_PAGE_SIZE rows", async () => {
    const { value } = await ok(bio(testService(fake, { maxPageSize: 300 }), manager), { target_chembl_id: BULK_TARGET, limit: 5 });
    assert.equal(value.staged_row_count, 2_500);
    const asked = limits("activity");
    assert.ok(asked.length >= 9, `${asked.length} pages`);
    assert.ok(
      asked.every((l) => l <= 300),
      JSON.stringify(asked),
    );
    assert.equal(asked.filter((l) => l === 300).length, 8, "full pages of 300, then the rest");
  });

  test("1000 rows a page by default", async () => {
    await ok(bio(testService(fake), manager), { target_chembl_id: BULK_TARGET, limit: 5 });
    assert.equal(Math.max(...limits("activity")), 1000);
  });
});

describe("CHEMBL_SPILL_DEADLINE_MS", () => {
  /** The budget of the walk call a spill starts (the first startCall with a deadlineMs), for the given progress state. */
  async function walkBudget(spillDeadlineMs: number, progressTracked: boolean): Promise<number> {
    const s = testService(fake, { spillDeadlineMs, deadlineMs: 5_000 });
    let budget: number | undefined;
    const start = s.startCall.bind(s);
    s.startCall = (options = {}) => {
      const call = start(options);
      if (options.deadlineMs !== undefined) budget ??= call.budgetMs;
      return call;
    };
    // The server's budget for such a call, far enough out that only the spill deadline limits the walk.
    await ok(bio(s, manager), { target_chembl_id: BULK_TARGET, limit: 5 }, serviceContext(300_000, { progressTracked }));
    assert.ok(budget !== undefined, "the spill started its walk call");
    return budget;
  }

  test("without a progress token the walk is held to 54 s, whatever the setting", async () => {
    const b = await walkBudget(120_000, false);
    assert.ok(b <= 54_000 && b > 53_000, `walk budget ${b} ms`);
  });

  test("with a progress token the walk may run the whole spill deadline past 54 s", async () => {
    const b = await walkBudget(120_000, true);
    assert.ok(b <= 120_000 && b > 119_000, `walk budget ${b} ms`);
  });

  test("the spill deadline replaces CHEMBL_DEADLINE_MS for the walk (45 s by default)", async () => {
    const b = await walkBudget(45_000, false);
    assert.ok(b <= 45_000 && b > 44_000, `walk budget ${b} ms`);
  });

  test("the tool asks for a longer budget only when the spill deadline needs one", () => {
    const tool = bio(testService(fake, { spillDeadlineMs: 120_000 }), manager);
    assert.equal(tool.progressBudgetMs?.(), 129_000, "the walk, then 8 s to stage, then a second");
    assert.equal(bio(testService(fake), manager).progressBudgetMs?.(), 55_000, "the usual budget for the default 45 s");
  });

  test("the server gives a tool its progress budget only when the call carries a progress token", async () => {
    const seen: number[] = [];
    const tool: ServiceTool = {
      kind: "service",
      toolset: "chembl",
      name: "budget_probe",
      title: "Budget probe",
      description: "Reports the budget it got.",
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      outputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false },
      errors: [],
      budgetMs: 2_000,
      progressBudgetMs: () => 100_000,
      async run(_args, ctx) {
        seen.push(ctx.deadline - Date.now());
        return { ok: ctx.progressTracked === true };
      },
    };
    const pool = new WorkerPool({ size: 1, lazy: true });
    try {
      const server = new McpServer({ tools: [tool], pool, info: { name: "t", version: "0" }, logger: createLogger({ CHEMATIC_LOG_LEVEL: "error" }, () => {}) });
      const plain = await server.runTool("budget_probe", {}, { signal: new AbortController().signal });
      const tracked = await server.runTool("budget_probe", {}, { signal: new AbortController().signal, progress: () => {} });
      assert.deepEqual([plain.ok && plain.value.ok, tracked.ok && tracked.value.ok], [false, true]);
      assert.ok(seen[0]! <= 2_000, `without a token: ${seen[0]} ms`);
      assert.ok(seen[1]! > 99_000 && seen[1]! <= 100_000, `with a token: ${seen[1]} ms`);
    } finally {
      await pool.close();
    }
  });
});

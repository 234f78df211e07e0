/**
 * canvas_import without a worker pool (a fake ChemRunner): a batch the budget leaves unfinished writes
 * nothing (TIMEOUT, no canvas minted, an appended-to table unchanged), and the byte cap of a canvas answers
 * CANVAS_FULL through the tool.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../src/domain/errors.js";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { createCanvasImportTool } from "../../src/tools/canvas_import.js";
import type { ChemRunner, ServiceContext } from "../../src/contract/tool.js";

const manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 10, maxBytes: 2_000 });
after(() => manager.close());
const tool = createCanvasImportTool(() => manager);

function ctx(runList: NonNullable<ChemRunner["runList"]>): ServiceContext {
  return {
    signal: new AbortController().signal,
    progress: () => {},
    deadline: Date.now() + 20_000,
    chem: { run: () => Promise.reject(new Error("unused")), runList },
  };
}
const echo = ctx(((_tool: unknown, items: Array<{ smiles: string }>) =>
  Promise.resolve(items.map((i) => ({ ok: true, value: { canonical: i.smiles } })))) as unknown as NonNullable<ChemRunner["runList"]>);
const halfDone = ctx(((_tool: unknown, items: Array<{ smiles: string }>) =>
  Promise.resolve(
    items.map((i, k) => (k % 2 === 0 ? { ok: true, value: { canonical: i.smiles } } : { ok: false, error: new ToolError("TIMEOUT", "not done").toPayload() })),
  )) as unknown as NonNullable<ChemRunner["runList"]>);

test("molecules the budget left undone: TIMEOUT, no canvas minted, an existing table unchanged", async () => {
  const before = manager.size;
  await assert.rejects(tool.run({ smiles_list: ["C", "CC", "CCC"] }, halfDone), (e: unknown) => e instanceof ToolError && e.code === "TIMEOUT");
  assert.equal(manager.size, before);
  const made = await tool.run({ smiles_list: ["C"], table: "t" }, echo);
  await assert.rejects(
    tool.run({ canvas_id: made.canvas_id, smiles_list: ["N", "O"], table: "t", mode: "append" }, halfDone),
    (e: unknown) => e instanceof ToolError && e.code === "TIMEOUT",
  );
  assert.equal((await manager.get(made.canvas_id)).tables.get("t")!.row_count, 1);
});

test("the canvas byte cap: an import past it is CANVAS_FULL and writes nothing", async () => {
  const made = await tool.run({ smiles_list: Array.from({ length: 20 }, () => "C".repeat(20)), table: "a" }, echo);
  await assert.rejects(
    tool.run({ canvas_id: made.canvas_id, smiles_list: Array.from({ length: 20 }, () => "C".repeat(30)), table: "b" }, echo),
    (e: unknown) => e instanceof ToolError && e.code === "CANVAS_FULL" && e.details.max_bytes === 2_000,
  );
  assert.deepEqual([...(await manager.get(made.canvas_id)).tables.keys()], ["a"]);
});

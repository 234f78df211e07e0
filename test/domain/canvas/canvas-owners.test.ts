/**
 * Canvas IDs name the replica and the run that made them, and canvases belong to the caller that made them
 * when the server authenticates: another caller's canvas answers exactly as an unknown ID (no existence
 * oracle, also once it expired or was dropped), another replica's ID and an earlier run's ID say so, and
 * without authentication (owner absent) nothing changes.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, loadCanvasConfig, parseReplicaId } from "../../../src/config.js";
import { CanvasManager } from "../../../src/domain/canvas/manager.js";
import { canvasIdOrigin, newCanvasId, randomReplicaId } from "../../../src/domain/canvas/ids.js";
import type { ColumnSpec } from "../../../src/domain/canvas/tables.js";
import type { ToolError } from "../../../src/domain/errors.js";
import { createChemblDataframeQueryTool } from "../../../src/tools/chembl_dataframe_query.js";
import { createChemblDataframeDescribeTool } from "../../../src/tools/chembl_dataframe_describe.js";
import { createChemblDataframeDropTool } from "../../../src/tools/chembl_dataframe_drop.js";
import { fails, ok, serviceContext } from "../../fixtures/chembl/harness.js";

const COLUMNS: ColumnSpec[] = [{ name: "n", type: "INTEGER", description: "n" }];

let manager: CanvasManager;
before(() => {
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 1_000, replicaId: "r2" }, { runTag: "Run1" });
});
after(() => manager.close());

const as = (owner?: string) => serviceContext(20_000, owner === undefined ? {} : { owner });
const query = () => createChemblDataframeQueryTool(() => manager);
const describeTool = () => createChemblDataframeDescribeTool(() => manager);
const drop = () => createChemblDataframeDropTool(() => manager);

describe("canvas IDs name their replica and run", () => {
  test("CHEMATIC_REPLICA_ID: lower-case letters and digits, 1 to 16; unset picks a random name", () => {
    assert.equal(parseReplicaId(undefined), null);
    assert.equal(parseReplicaId(" r1 "), "r1");
    for (const bad of ["R1", "r_1", "r-1", "a".repeat(17), "é"]) assert.throws(() => parseReplicaId(bad), ConfigError, bad);
    assert.equal(loadCanvasConfig({ CHEMATIC_REPLICA_ID: "chem3" }).replicaId, "chem3");
    assert.match(randomReplicaId(), /^[a-z0-9]{6}$/);
    const unnamed = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 10 });
    assert.match(unnamed.origin.replica, /^[a-z0-9]{6}$/);
    assert.match(unnamed.origin.run, /^[A-Za-z0-9]{4}$/);
  });

  test("a minted ID carries the replica and the run; another replica's ID says where it lives", async () => {
    const c = await manager.create();
    assert.deepEqual(canvasIdOrigin(c.id), { replica: "r2", run: "Run1" });
    assert.match(c.id, /^cv_r2_Run1[A-Za-z0-9]{24}$/);
    const elsewhere = newCanvasId({ replica: "r7", run: "Run1" });
    const e = await fails(query(), { canvas_id: elsewhere, sql: "SELECT 1" });
    assert.equal(e.code, "CANVAS_NOT_FOUND");
    assert.equal(e.details.reason, "other_replica");
    assert.equal(e.details.canvas_replica, "r7");
    assert.match(e.message, /held by replica r7; this call reached replica r2/);
    assert.match(e.hint, /Mcp-Param-Canvas-Id/);
    await manager.release(c.id);
  });

  test("an ID of an earlier run of this replica says the replica restarted", async () => {
    const restarted = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 1_000, replicaId: "r2" }, { runTag: "Run2" });
    try {
      const before = await manager.create();
      const e = await fails(
        createChemblDataframeQueryTool(() => restarted),
        { canvas_id: before.id, sql: "SELECT 1" },
      );
      assert.equal(e.code, "CANVAS_NOT_FOUND");
      assert.equal(e.details.reason, "restarted");
      assert.match(e.message, /made before replica r2 restarted/);
      assert.match(e.hint, /Re-run chembl_get_bioactivities/);
      await manager.release(before.id);
    } finally {
      await restarted.close();
    }
  });
});

describe("canvases belong to the caller that made them", () => {
  test("another caller's canvas answers as an unknown ID; the owner reads it", async () => {
    const mine = await manager.create(false, "sub:alice");
    await mine.stage("t", COLUMNS, [[1], [2]], {});
    const r = await ok(query(), { canvas_id: mine.id, sql: "SELECT sum(n) AS s FROM t" }, as("sub:alice"));
    assert.deepEqual(r.value.rows, [{ s: 3 }]);

    const unknown = `${mine.id.slice(0, -24)}${"A".repeat(24)}`;
    const missing = await fails(query(), { canvas_id: unknown, sql: "SELECT 1" }, as("sub:bob"));
    for (const [who, ctx] of [
      ["another subject", as("sub:bob")],
      ["an unauthenticated call", as()],
    ] as const) {
      for (const tool of [query(), describeTool(), drop()]) {
        const args = tool.name === "chembl_dataframe_query" ? { canvas_id: mine.id, sql: "SELECT 1" } : { canvas_id: mine.id };
        const e = await fails(tool, args, ctx);
        assert.equal(e.code, "CANVAS_NOT_FOUND", `${tool.name}, ${who}`);
        // The same answer as an ID that names nothing, the ID aside: nothing tells that the canvas exists.
        assert.equal(e.message.replace(mine.id, "<id>"), missing.message.replace(unknown, "<id>"), `${tool.name}, ${who}`);
        assert.deepEqual({ ...e.details, canvas_id: "<id>" }, { ...missing.details, canvas_id: "<id>" });
        assert.equal(e.hint, missing.hint);
      }
    }
    // Still there for its owner: nobody else's call dropped it.
    await ok(describeTool(), { canvas_id: mine.id }, as("sub:alice"));
  });

  test("why a canvas is gone is told to its owner only", async () => {
    const mine = await manager.create(false, "token:alice");
    await manager.release(mine.id, "expired");
    const toOwner = await fails(query(), { canvas_id: mine.id, sql: "SELECT 1" }, as("token:alice"));
    assert.equal(toOwner.details.reason, "expired");
    const toOther = await fails(query(), { canvas_id: mine.id, sql: "SELECT 1" }, as("token:bob"));
    assert.equal(toOther.details.reason, "unknown");
  });

  test("without authentication nothing changes: canvases have no owner and every call reads them", async () => {
    const open = await manager.create();
    assert.equal(open.owner, null);
    await open.stage("t", COLUMNS, [[5]], {});
    const r = await ok(query(), { canvas_id: open.id, sql: "SELECT n FROM t" }, as());
    assert.deepEqual(r.value.rows, [{ n: 5 }]);
    const e = await fails(query(), { canvas_id: open.id, sql: "SELECT n FROM t" }, as("sub:alice"));
    assert.equal(e.code, "CANVAS_NOT_FOUND", "an authenticated caller does not see an unowned canvas");
  });
});

describe("canvases staged from one column list", () => {
  test("annotating one canvas adds columns to its table only (a spill's column list is shared by every canvas)", async () => {
    const shared: ColumnSpec[] = [{ name: "smiles", type: "VARCHAR", description: "SMILES" }];
    const a = await manager.create();
    const b = await manager.create();
    await a.stage("t", shared, [["CCO"]], {});
    await b.stage("t", shared, [["CCN"]], {});
    const column = { name: "mw", type: "DOUBLE" as const, description: "mw", definition: '{"kind":"mw"}' };
    await a.prepareAnnotation("t", "smiles", [column]);
    assert.deepEqual(
      shared.map((c) => c.name),
      ["smiles"],
      "the caller's list is unchanged",
    );
    assert.deepEqual(
      b.tables.get("t")!.columns.map((c) => c.name),
      ["smiles"],
    );
    // The other canvas annotates as if alone (this failed with "_row not found" when the list was shared).
    const work = await b.prepareAnnotation("t", "smiles", [column]);
    assert.deepEqual(work.pending, [{ row: 0, smiles: "CCN" }]);
    await manager.release(a.id);
    await manager.release(b.id);
  });
});

describe("per-caller quotas (issue 37 item 2)", () => {
  test("when the replica is full, the caller holding the most canvases gives up its least recently used one", async () => {
    let now = 0;
    const m = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 100 }, { maxCanvases: 6, maxCanvasesPerCaller: 4, now: () => ++now });
    try {
      const alice = [await m.create(false, "alice"), await m.create(false, "alice"), await m.create(false, "alice"), await m.create(false, "alice")];
      const bob = [await m.create(false, "bob"), await m.create(false, "bob")];
      await m.get(alice[0]!.id, "alice"); // alice's first is now her most recently used
      const carol = await m.create(false, "carol");
      const left = new Set(m.ids());
      assert.ok(left.has(carol.id));
      for (const c of bob) assert.ok(left.has(c.id), "bob holds fewer: none of his goes");
      assert.equal(left.has(alice[1]!.id), false, "alice holds the most: her least recently used went");
      assert.ok(left.has(alice[0]!.id));
    } finally {
      await m.close();
    }
  });

  test("a caller at its quota with every canvas in use is refused QUOTA_EXCEEDED; another caller still gets one", async () => {
    const m = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 100 }, { maxCanvases: 10, maxCanvasesPerCaller: 2 });
    try {
      const held = [await m.create(false, "alice"), await m.create(false, "alice")];
      // Held until the test lets go (not for a fixed time): both checks run while alice's canvases are in use.
      let release = () => {};
      const inUse = new Promise<void>((r) => (release = r));
      const holds = held.map((c) => c.hold(() => inUse));
      await assert.rejects(m.create(false, "alice"), (e: ToolError) => e.code === "QUOTA_EXCEEDED" && e.details.reason === "canvases");
      const bobs = await m.create(false, "bob");
      assert.ok(m.ids().includes(bobs.id));
      release();
      await Promise.all(holds);
    } finally {
      await m.close();
    }
  });
});

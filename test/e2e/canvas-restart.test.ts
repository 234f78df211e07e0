/**
 * File-backed canvases survive a kill -9 and a restart of the real server over stdio (issue 32, item 1): a set
 * imported and annotated, the server killed while idle, a new server on the same CHEMATIC_CANVAS_DIR lists the
 * canvas (chembl_dataframe_describe without canvas_id) and answers the same rows; a canvas whose files were deleted
 * answers CANVAS_NOT_FOUND reason lost; a second server on the same directory gets BUSY canvas_locked for a canvas
 * the first holds open. And a server killed while a long canvas_annotate writes: the restarted server reopens a
 * consistent canvas, with or without the interrupted column, and the same call finishes the work.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MODERN_META, ServerProcess, type Message } from "../helpers/server-process.js";

const SLOW_MACHINE_MS = 60_000;
type Result = { structuredContent?: Record<string, unknown>; content?: Array<{ type: string; text: string }>; isError?: boolean };

let root: string;
const servers: ServerProcess[] = [];
before(() => {
  root = mkdtempSync(join(tmpdir(), "chematic-restart-e2e-"));
});
after(async () => {
  for (const s of servers) s.kill();
  await Promise.all(servers.map((s) => s.exited));
  rmSync(root, { recursive: true, force: true });
});

function start(dir: string): ServerProcess {
  const s = new ServerProcess({ CHEMATIC_CANVAS_DIR: dir, CHEMATIC_OFFLINE: "1", CHEMATIC_WORKERS: "2", CHEMATIC_LOG_LEVEL: "warn" });
  servers.push(s);
  return s;
}

/** `n` varied small molecules (chains, heteroatoms, rings), a few hundred distinct. */
function library(n: number): string[] {
  const heads = ["", "c1ccccc1", "C1CCNCC1", "c1ccncc1", "O=C(O)"];
  const tails = ["O", "N", "Cl", "C(=O)O", "OC", "F", "C#N", "S"];
  return Array.from({ length: n }, (_, i) => `${heads[i % heads.length]}${"C".repeat(1 + (i % 13))}${tails[Math.floor(i / 13) % tails.length]}`);
}

let nextId = 1;
async function call(s: ServerProcess, name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}): Promise<Result> {
  const answer: Message = await s.modernCall(nextId++, name, args, meta, SLOW_MACHINE_MS);
  return answer.result as Result;
}

async function ok(s: ServerProcess, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await call(s, name, args);
  assert.notEqual(r.isError, true, `${name}: ${JSON.stringify(r.structuredContent).slice(0, 500)}`);
  return r.structuredContent!;
}

async function rows(s: ServerProcess, canvasId: string, sql: string): Promise<unknown[]> {
  const r = await ok(s, "chembl_dataframe_query", { canvas_id: canvasId, sql, max_rows: 1_000 });
  assert.equal(r.truncated, false, "every row answered");
  return r.rows as unknown[];
}

async function killed(s: ServerProcess): Promise<void> {
  process.kill(s.child.pid!, "SIGKILL");
  await s.exited;
}

describe("file-backed canvases across kill -9", () => {
  test("killed while idle: the restarted server lists the canvas and answers the same rows; deleted files answer lost; a second server gets BUSY", async () => {
    const dir = mkdtempSync(join(root, "idle-"));
    const first = start(dir);
    const made = await ok(first, "canvas_import", { smiles_list: library(300), table: "mols" });
    const id = made.canvas_id as string;
    const annotated = await ok(first, "canvas_annotate", { canvas_id: id, table: "mols", columns: ["mw", "logp", "murcko_scaffold"] });
    assert.equal(annotated.complete, true);
    const other = (await ok(first, "canvas_import", { smiles_list: library(20), table: "small" })).canvas_id as string;
    const sql = "SELECT * FROM mols ORDER BY _row";
    const before = await rows(first, id, sql);
    assert.equal(before.length, 300);
    await killed(first);

    const second = start(dir);
    const listed = await ok(second, "chembl_dataframe_describe", {});
    const canvases = listed.canvases as Array<{ canvas_id: string; state: string; tables: Array<{ name: string; row_count: number }> }>;
    assert.deepEqual(
      canvases.map((c) => [c.canvas_id, c.state, c.tables]).sort(),
      [
        [id, "on_disk", [{ name: "mols", row_count: 300 }]],
        [other, "on_disk", [{ name: "small", row_count: 20 }]],
      ].sort(),
    );
    assert.deepEqual(await rows(second, id, sql), before, "the same rows after kill -9 and a restart");
    const again = await ok(second, "canvas_annotate", { canvas_id: id, table: "mols", columns: ["mw", "logp", "murcko_scaffold"] });
    assert.deepEqual([again.complete, again.rows_computed], [true, 0], "the bookkeeping survived: nothing recomputed");

    // Another server on the same directory: the canvas the second holds open is locked.
    const third = start(dir);
    const locked = await call(third, "chembl_dataframe_query", { canvas_id: id, sql: "SELECT 1" });
    assert.equal(locked.isError, true);
    const lockError = locked.structuredContent!.error as { code: string; details: { reason: string }; hint: string };
    assert.deepEqual([lockError.code, lockError.details.reason], ["BUSY", "canvas_locked"]);
    assert.match(lockError.hint, /CHEMATIC_CANVAS_DIR/);
    assert.equal(await third.close(), 0);

    for (const name of readdirSync(dir)) if (name.startsWith(`${other}.duckdb`)) rmSync(join(dir, name), { recursive: true, force: true });
    const lost = await call(second, "chembl_dataframe_query", { canvas_id: other, sql: "SELECT 1" });
    const lostError = lost.structuredContent!.error as { code: string; message: string; details: { reason: string } };
    assert.deepEqual([lostError.code, lostError.details.reason], ["CANVAS_NOT_FOUND", "lost"]);
    assert.match(lostError.message, /gone from the canvas directory/);
    assert.equal(await second.close(), 0);
    assert.ok(readdirSync(dir).includes(`${id}.duckdb`), "a clean exit leaves the canvas on disk too");
  });

  // Killed once the first 2,000-row step is computed (its write under way), or once the second step runs (the first
  // written): either way a consistent canvas, and in the second the rows written are not computed again.
  for (const [when, progress] of [
    ["at its first write", 2_000],
    ["after its first write", 2_001],
  ] as const) {
    test(`killed while canvas_annotate runs, ${when}: the restarted server reopens a consistent canvas and the same call finishes`, async () => {
      const dir = mkdtempSync(join(root, "busy-"));
      const first = start(dir);
      const n = 3_000;
      const id = (await ok(first, "canvas_import", { smiles_list: library(n), table: "mols" })).canvas_id as string;
      const columns = ["mw", "logp", "murcko_scaffold"];
      const token = "annotate-1";
      // Not awaited: the server is killed mid-call.
      // (Sent raw: no answer is awaited, so no timer outlives the server.)
      first.send({
        jsonrpc: "2.0",
        id: nextId++,
        method: "tools/call",
        params: { _meta: { ...MODERN_META, progressToken: token }, name: "canvas_annotate", arguments: { canvas_id: id, table: "mols", columns } },
      });
      await first.until(
        () => first.messages.some((m) => m.method === "notifications/progress" && m.params?.progressToken === token && Number(m.params.progress) >= progress),
        `progress ${progress}`,
        SLOW_MACHINE_MS,
      );
      await killed(first);

      const second = start(dir);
      const described = await ok(second, "chembl_dataframe_describe", { canvas_id: id });
      const [table] = described.tables as Array<{ name: string; row_count: number; columns: Array<{ name: string }> }>;
      assert.equal(table!.row_count, n, "every imported row is there");
      const names = table!.columns.map((c) => c.name);
      const present = columns.filter((c) => names.includes(c));
      assert.ok(present.length === 0 || present.length === columns.length, `the interrupted columns come whole or not at all: ${names.join(", ")}`);
      const [counts] = (await rows(second, id, "SELECT count(*) AS n, count(DISTINCT smiles) AS distinct_smiles FROM mols")) as Array<{ n: number }>;
      assert.equal(Number(counts!.n), n);
      let done = false;
      let computed = 0;
      for (let i = 0; i < 10 && !done; i++) {
        const r = await ok(second, "canvas_annotate", { canvas_id: id, table: "mols", columns });
        done = r.complete === true;
        computed += r.rows_computed as number;
      }
      assert.ok(done, "the same call finishes the work");
      assert.ok(computed <= (progress > 2_000 ? n - 2_000 : n), `${computed} rows computed after the restart`);
      const [check] = (await rows(
        second,
        id,
        "SELECT count(*) FILTER (WHERE mw IS NULL) AS missing, count(*) FILTER (WHERE abs(mw - 0) < 1e-9) AS zero FROM mols",
      )) as Array<{ missing: number; zero: number }>;
      assert.deepEqual([Number(check!.missing), Number(check!.zero)], [0, 0], "every row holds its value");
      assert.equal(await second.close(), 0);
    });
  }
});

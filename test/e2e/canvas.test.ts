/**
 * The canvas through the real server over stdio (createApp's wiring): a spill with progress
 * notifications, SQL and describe on the canvas it returns, a refused query, the skill resources, a
 * file-backed canvas left on disk when the server exits; the canvas off with the drop tool enabled; and a
 * bad CHEMATIC_CANVAS_DIR stopping start-up with one line naming it.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CLI_PATH, ServerProcess } from "../helpers/server-process.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";

const run = promisify(execFile);
const SLOW_MACHINE_MS = 60_000;

let fake: FakeChembl;
let dir: string;
before(async () => {
  fake = await new FakeChembl("new").start();
  dir = mkdtempSync(join(tmpdir(), "chematic-canvas-e2e-"));
});
after(async () => {
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    CHEMBL_API_BASE_URL: fake.baseUrl,
    CHEMBL_REQUEST_TIMEOUT_MS: "3000",
    CHEMBL_DEADLINE_MS: "8000",
    CHEMATIC_WORKERS: "1",
    CHEMATIC_LOG_LEVEL: "warn",
    ...extra,
  };
}

type Result = { structuredContent?: Record<string, unknown>; content?: Array<{ type: string; text: string }>; isError?: boolean };

describe("canvas on, file-backed", () => {
  test("spill with progress, describe, SQL, a refusal, the skill; the files stay when the server exits", async () => {
    const s = new ServerProcess(env({ CHEMATIC_CANVAS_DIR: dir }));
    try {
      const spill = await s.modernCall(1, "chembl_get_bioactivities", { target_chembl_id: "CHEMBL235", limit: 10 }, { progressToken: "spill-1" });
      const staged = (spill.result as Result).structuredContent!;
      assert.deepEqual([staged.staged_row_count, staged.table_name, staged.truncated], [57, "bioactivities", false]);
      const progress = s.messages.filter((m) => m.method === "notifications/progress" && m.params?.progressToken === "spill-1");
      assert.ok(progress.length >= 1, "progress notifications");
      assert.equal(progress.at(-1)!.params!.progress, 57);
      const canvasId = staged.canvas_id as string;
      assert.ok(readdirSync(dir).includes(`${canvasId}.duckdb`), "the canvas file sits directly in CHEMATIC_CANVAS_DIR");
      assert.ok(readdirSync(dir).includes(`${canvasId}.json`), "beside its sidecar");

      const q = await s.modernCall(2, "chembl_dataframe_query", {
        canvas_id: canvasId,
        sql: "SELECT standard_type, count(*) AS n, max(pchembl_value) AS best FROM bioactivities GROUP BY 1",
      });
      const qr = q.result as Result;
      assert.equal(qr.isError, undefined);
      assert.deepEqual(qr.structuredContent!.rows, [{ standard_type: "EC50", n: 57, best: 9 }]);
      assert.match(qr.content![0]!.text, /^\*\*ChEMBL canvas query\*\*/);
      const d = await s.modernCall(3, "chembl_dataframe_describe", { canvas_id: canvasId });
      assert.equal(((d.result as Result).structuredContent!.tables as Array<{ row_count: number }>)[0]!.row_count, 57);
      const refused = await s.modernCall(4, "chembl_dataframe_query", { canvas_id: canvasId, sql: "SELECT * FROM read_text('/etc/passwd')" });
      assert.equal((refused.result as Result).isError, true);
      assert.equal(((refused.result as Result).structuredContent!.error as { code: string }).code, "QUERY_REFUSED");
      assert.ok(!s.lines.some((l) => l.includes("root:x:0:0")));

      const skill = await s.request(
        5,
        "resources/read",
        {
          _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
          uri: "skill://chembl-guide/SKILL.md",
        },
        SLOW_MACHINE_MS,
      );
      assert.match((skill.result!.contents as Array<{ text: string }>)[0]!.text, /name: chembl-guide/);
      const escape = await s.request(
        6,
        "resources/read",
        {
          _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
          uri: "skill://chembl-guide/../../package.json",
        },
        SLOW_MACHINE_MS,
      );
      assert.equal(escape.error!.code, -32602);
      const list = await s.modernCall(7, "chembl_dataframe_query", { canvas_id: canvasId, sql: "SELECT 1 AS one" });
      assert.deepEqual((list.result as Result).structuredContent!.rows, [{ one: 1 }], "the server is still up");
    } finally {
      assert.equal(await s.close(), 0);
    }
    assert.ok(
      readdirSync(dir).some((f) => f.endsWith(".duckdb")),
      "the server left its canvas on disk for the next run (canvas-restart.test.ts reopens one)",
    );
  });
});

describe("canvas off", () => {
  test("pages inline with nextCursor; the dataframe tools answer CANVAS_DISABLED; the drop tool exists when enabled", async () => {
    const s = new ServerProcess(env({ CHEMATIC_CANVAS: "off", CHEMBL_DATAFRAME_DROP_ENABLED: "true" }));
    try {
      const page = await s.modernCall(1, "chembl_get_bioactivities", { target_chembl_id: "CHEMBL235", limit: 10 });
      const v = (page.result as Result).structuredContent!;
      assert.deepEqual([v.returned, v.canvas_id, v.staged_row_count], [10, null, null]);
      assert.equal(typeof v.nextCursor, "string");
      const tools = await s.request(
        2,
        "tools/list",
        { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
        SLOW_MACHINE_MS,
      );
      const names = (tools.result!.tools as Array<{ name: string }>).map((t) => t.name);
      for (const name of ["chembl_dataframe_query", "chembl_dataframe_describe", "chembl_dataframe_drop"]) assert.ok(names.includes(name), name);
      for (const [i, [name, args]] of (
        [
          ["chembl_dataframe_query", { canvas_id: `cv_r1_${"A".repeat(28)}`, sql: "SELECT 1" }],
          ["chembl_dataframe_describe", { canvas_id: `cv_r1_${"A".repeat(28)}` }],
          ["chembl_dataframe_drop", { canvas_id: `cv_r1_${"A".repeat(28)}` }],
        ] as const
      ).entries()) {
        const r = (await s.modernCall(10 + i, name, args)).result as Result;
        assert.equal(r.isError, true, name);
        assert.equal((r.structuredContent!.error as { code: string }).code, "CANVAS_DISABLED", name);
      }
    } finally {
      await s.close();
    }
  });

  test("a bad CHEMATIC_CANVAS_DIR stops start-up with one line naming it", async () => {
    const err = await run(process.execPath, [CLI_PATH, "call", "parse_smiles", '{"smiles":"CCO"}'], {
      env: { ...process.env, ...env({ CHEMATIC_CANVAS_DIR: `${dir}/../etc` }) },
    }).then(
      () => assert.fail("should exit non-zero"),
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal(err.code, 2);
    assert.match(err.stderr.split("\n")[0]!, /^chematic-mcp: CHEMATIC_CANVAS_DIR must not contain "\." or "\.\." segments/);
  });
});

/**
 * A canvas query's memory is bounded whatever the SQL (issue 37 item 1). DuckDB's memory_limit covers its buffer
 * manager, not values functions build: `SELECT length(repeat(repeat('x', 100000000), 30))` on a 2-row canvas took
 * the process from 294 MB to 5,003 MB. Over stdio, against a server whose ceiling is CHEMATIC_PROCESS_MAX_MB=512,
 * every value-building query below is answered with a named error (QUERY_REFUSED memory_limit from the parse tree
 * or DuckDB's limit, process_memory from the watchdog, QUERY_TIMEOUT), the server keeps serving, and its peak
 * resident memory (VmHWM) stays under the documented bound: CHEMATIC_PROCESS_MAX_MB + 512 MB.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { ServerProcess } from "../helpers/server-process.js";

const MAX_MB = 512;
const BOUND_MB = MAX_MB + 512;

const QUERIES = [
  "SELECT length(repeat(repeat('x', 100000000), 30)) AS n FROM mols",
  "SELECT length(lpad(smiles, 2000000000, 'y')) AS n FROM mols",
  "SELECT length(rpad('x', 1000000000, 'y')) AS n",
  "SELECT length(printf('%1000000000d', 1)) AS n",
  "SELECT len(range(2000000000)) AS n",
  "SELECT count(*) AS n FROM (SELECT unnest(range(1000000000)))",
  "SELECT len(list_resize([1], 1000000000)) AS n",
  "SELECT length(regexp_replace(repeat('a', 60000), 'a', repeat('b', 60000), 'g')) AS n",
  "SELECT length(string_agg(repeat('x', 60000), '')) AS n FROM range(1000000)",
  "SELECT len(list(i)) AS n FROM range(500000000) t(i)",
  "SELECT len(array_agg(repeat('y', 50000))) AS n FROM range(1000000)",
  "WITH RECURSIVE r(s, k) AS (SELECT 'x', 0 UNION ALL SELECT s || s, k + 1 FROM r WHERE k < 40) SELECT max(length(s)) AS n FROM r",
  "SELECT length(string_agg(s, '')) AS n FROM (SELECT repeat(smiles, 12) AS s FROM mols, range(2000000))",
];

function vmHwmMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

test("every value-building query is answered with a named error and the process's peak memory stays under the bound (issue 37 item 1)", async (t) => {
  if (!existsSync("/proc/self/status")) return t.skip("no /proc: VmHWM cannot be read on this system");
  const s = new ServerProcess({ CHEMATIC_PROCESS_MAX_MB: String(MAX_MB), CHEMATIC_WORKERS: "1" });
  try {
    const made = await s.modernCall("import", "canvas_import", { smiles_list: ["CCO", "c1ccccc1"], table: "mols" });
    const canvasId = (made.result!.structuredContent as { canvas_id: string }).canvas_id;
    assert.ok(canvasId, JSON.stringify(made));
    const named = new Set(["QUERY_REFUSED", "QUERY_TIMEOUT"]);
    for (const [i, sql] of QUERIES.entries()) {
      const r = await s.modernCall(`q${i}`, "chembl_dataframe_query", { canvas_id: canvasId, sql }, {}, 60_000);
      const error = (r.result?.structuredContent as { error?: { code: string; details?: { reason?: string } } } | undefined)?.error;
      const hwm = vmHwmMb(s.child.pid!);
      t.diagnostic(`${error?.code ?? "answered"} ${error?.details?.reason ?? ""}: peak ${hwm.toFixed(0)} MB :: ${sql}`);
      assert.ok(r.result?.isError === true && error !== undefined && named.has(error.code), `${sql}: ${JSON.stringify(r).slice(0, 300)}`);
      assert.ok(hwm <= BOUND_MB, `${sql}: peak resident memory ${hwm.toFixed(0)} MB, bound ${BOUND_MB} MB`);
    }
    const ok = await s.modernCall("after", "chembl_dataframe_query", { canvas_id: canvasId, sql: "SELECT smiles, length(repeat(smiles, 3)) AS n FROM mols" });
    assert.equal(ok.result?.isError, undefined, "an ordinary query still runs");
  } finally {
    await s.close();
  }
});

/**
 * The acceptance spill: chembl_get_bioactivities walks a 50,000-row view from the fake ChEMBL server
 * (1,000 a page, pages concurrent through the pacer, progress reported), stages all of it in DuckDB, and
 * chembl_dataframe_query reads it. The fake runs in a child process, so the wall time and peak memory
 * reported (as test diagnostics) are the spilling process's own.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ChemblService } from "../../src/domain/chembl/service.js";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { createChemblGetBioactivitiesTool } from "../../src/tools/chembl_get_bioactivities.js";
import { createChemblDataframeQueryTool } from "../../src/tools/chembl_dataframe_query.js";
import { BULK_FIRST_ID, BULK_TARGET } from "../fixtures/chembl/bulk.js";
import { startBulkFake, type BulkFake } from "../fixtures/chembl/bulk-server.js";
import { ok, serviceContext } from "../fixtures/chembl/harness.js";

const ROWS = 50_000;
let fake: BulkFake;
let manager: CanvasManager;

before(async () => {
  fake = await startBulkFake(ROWS);
});
after(async () => {
  await manager?.close();
  await fake?.stop();
});

test(`a ${ROWS.toLocaleString("en")}-row view spills to DuckDB and answers SQL`, async (t) => {
  const service = new ChemblService({
    apiBaseUrl: fake.baseUrl,
    requestTimeoutMs: 30_000,
    deadlineMs: 45_000,
    maxConcurrentPages: 4,
    offline: false,
    spillDeadlineMs: 45_000,
    maxPageSize: 1000,
    defaultLimit: 25,
  });
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
  const bio = createChemblGetBioactivitiesTool(
    () => service,
    () => manager,
  );
  const query = createChemblDataframeQueryTool(() => manager);
  // Load the binding before the clock starts: the first spill of a process pays it once.
  assert.equal(await manager.available(), true);

  const progress: Array<[number, number | undefined]> = [];
  let lastPageAt = 0;
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  sample();
  const baseRss = process.memoryUsage().rss;
  const sampler = setInterval(sample, 20);
  const started = performance.now();
  const { value } = await ok(
    bio,
    { target_chembl_id: BULK_TARGET },
    serviceContext(55_000, {
      progress: (p: number, total?: number) => {
        progress.push([p, total]);
        lastPageAt = performance.now();
      },
    }),
  );
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  sample();
  const maxRssKb = process.resourceUsage().maxRSS;

  assert.equal(value.total_count, ROWS);
  assert.equal(value.staged_row_count, ROWS);
  assert.equal(value.truncated, false);
  assert.equal(value.truncated_by, null);
  assert.equal(value.table_name, "bioactivities");
  assert.equal(value.returned, 25, "the answer shows one page of CHEMBL_DEFAULT_LIMIT (25) rows");
  assert.equal(value.nextCursor, null);
  assert.match(value.notice as string, /Staged 50000 of 50000 rows as table bioactivities/);

  const stats = await fake.stats();
  assert.equal(stats.activityRequests.length, ROWS / 1000);
  assert.ok(stats.activityRequests.every((r) => r.limit === 1000));
  assert.deepEqual(
    stats.activityRequests.map((r) => r.offset).sort((a, b) => a - b),
    Array.from({ length: ROWS / 1000 }, (_, i) => i * 1000),
  );
  assert.ok(stats.maxInFlight >= 2 && stats.maxInFlight <= 4, `pages ran concurrently, at most 4 at once (saw ${stats.maxInFlight})`);
  assert.ok(progress.length >= ROWS / 1000, "progress after every page");
  assert.deepEqual(progress.at(-1), [ROWS, ROWS]);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i]![0] > progress[i - 1]![0], "progress increases");

  const canvasId = value.canvas_id as string;
  const q = async (sql: string, max_rows = 100) => (await ok(query, { canvas_id: canvasId, sql, max_rows })).value;
  const qStarted = performance.now();
  const totals = (
    await q(
      "SELECT count(*) AS n, count(DISTINCT parent_molecule_chembl_id) AS families, sum(activity_id) AS ids, count(*) FILTER (WHERE standard_type = 'Ki') AS ki, count(*) FILTER (WHERE assay_variant_mutation IS NOT NULL) AS mutants, min(view_position) AS first, max(view_position) AS last FROM bioactivities",
    )
  ).rows as Array<Record<string, number>>;
  assert.deepEqual(totals[0], {
    n: ROWS,
    families: 4000,
    ids: ROWS * BULK_FIRST_ID + (ROWS * (ROWS - 1)) / 2,
    ki: ROWS / 5,
    mutants: Math.floor((ROWS - 1) / 13) + 1,
    first: 1,
    last: ROWS,
  });
  const order = (await q("SELECT activity_id, pchembl_value FROM bioactivities ORDER BY view_position LIMIT 3")).rows;
  assert.deepEqual(order, [
    { activity_id: BULK_FIRST_ID, pchembl_value: 9.99 },
    { activity_id: BULK_FIRST_ID + 1, pchembl_value: 9.99 },
    { activity_id: BULK_FIRST_ID + 2, pchembl_value: 9.99 },
  ]);
  const ranked = await q(
    "SELECT parent_molecule_chembl_id, count(*) AS n, round(median(pchembl_value), 2) AS median_pchembl FROM bioactivities WHERE standard_type = 'IC50' AND assay_variant_mutation IS NULL AND NOT coalesce(potential_duplicate, false) GROUP BY 1 ORDER BY median_pchembl DESC, parent_molecule_chembl_id LIMIT 20",
    20,
  );
  assert.equal(ranked.returned, 20);
  const all = await q("SELECT * FROM bioactivities", 1000);
  assert.equal(all.truncated, true);
  const queryMs = performance.now() - qStarted;

  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
  t.diagnostic(
    `spill of ${ROWS} rows (50 pages of 1000, 4 in flight): ${(wallMs / 1000).toFixed(2)} s wall, of which the walk ${((lastPageAt - started) / 1000).toFixed(2)} s and staging in DuckDB ${((started + wallMs - lastPageAt) / 1000).toFixed(2)} s`,
  );
  t.diagnostic(
    `memory: rss before ${mb(baseRss)}, peak rss during the spill ${mb(peakRss)} (sampled every 20 ms), peak heapUsed ${mb(peakHeap)}, process maxRSS ${mb(maxRssKb * 1024)}`,
  );
  t.diagnostic(`four queries over the staged table: ${queryMs.toFixed(0)} ms`);
  assert.ok(wallMs < 45_000, `the spill finished within the service deadline (${wallMs} ms)`);
});

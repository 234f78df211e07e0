/**
 * The table app (ui://chematic/table) on a large canvas table (issue 33's bench): the time from the host handing
 * the app canvas_import's result to the first page rendered with every structure drawn, then the next page, a sort
 * by a column (descending) and a substructure filter (the first filtered page matches every row in the worker pool;
 * the next one comes from the cache), in headless Chromium through the ext-apps SDK's host side
 * (test/helpers/app-host.ts), on a real stdio server. Beside each, in the same run: the same page's rows fetched by a
 * plain chembl_dataframe_query, and for the substructure native RDKit's HasSubstructMatch over the same SMILES
 * (parse included, one core). Then each app page's size, raw and gzipped.
 *
 *   npm run bench:table-app            (BENCH_TABLE_N rows, default 100,000: RDKit's NCI first_5K.smi repeated)
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Frame } from "playwright-core";
import { appsServer, callTool, chromiumMissing, launchChromium, openApp } from "../test/helpers/app-host.js";

const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const N = Number(process.env.BENCH_TABLE_N ?? 100_000);
const QUERY = "c1ccccc1C(=O)O";

const why = chromiumMissing() ?? (existsSync(NCI) ? undefined : `no ${NCI}`);
if (why) {
  console.error(`bench:table-app needs ${why}`);
  process.exit(1);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function rendered(frame: Frame, before: string | undefined, prefix: string): Promise<string> {
  await frame.waitForFunction(
    ([b, p]) => {
      const body = (globalThis as unknown as { document: { body: { dataset: Record<string, string | undefined> } } }).document.body;
      const r = body.dataset.rendered;
      return r !== undefined && r !== b && r.startsWith(p);
    },
    [before, prefix] as const,
    { timeout: 600_000 },
  );
  return (await frame.evaluate(() => (globalThis as unknown as { document: { body: { dataset: Record<string, string> } } }).document.body.dataset.rendered))!;
}

const dir = mkdtempSync(join(tmpdir(), "chematic-bench-table-"));
mkdirSync(join(dir, "import"));
const source = readFileSync(NCI, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "");
const lines = Array.from({ length: N }, (_, i) => source[i % source.length]!);
writeFileSync(join(dir, "import", "big.smi"), lines.join("\n") + "\n");

const server = await appsServer({ CHEMATIC_IMPORT_DIR: join(dir, "import"), CHEMATIC_WORKERS: "2" });
const browser = await launchChromium();
try {
  let t = Date.now();
  const args = { path: "big.smi", table: "big" };
  const imported = await callTool(server, "canvas_import", args, 600_000);
  const canvasId = (imported.structuredContent as { canvas_id: string }).canvas_id;
  console.log(`setup: canvas_import of ${N.toLocaleString("en-US")} rows in ${seconds(Date.now() - t)} (not counted)`);

  const reference = async (sql: string) => {
    const r = Date.now();
    await callTool(server, "chembl_dataframe_query", { canvas_id: canvasId, sql });
    return Date.now() - r;
  };

  // A first session on a tiny list warms what is the bench's, not the app's: the test host page's bundle.
  const warm = await openApp(browser, server, { uri: "ui://chematic/table", tool: "depict", args: { smiles_list: ["CCO", "c1ccccc1"] } });
  await rendered(warm.frame, undefined, "0:");
  await warm.close();

  t = Date.now();
  const session = await openApp(browser, server, { uri: "ui://chematic/table", tool: "canvas_import", args, result: imported, height: 900 });
  const handed = Date.now() - t;
  let mark = await rendered(session.frame, undefined, `0:${N}:`);
  const first = Date.now() - t;
  const firstRef = await reference("SELECT * FROM big ORDER BY _row LIMIT 10");

  t = Date.now();
  await session.frame.locator("#next").click();
  mark = await rendered(session.frame, mark, `10:${N}:`);
  const next = Date.now() - t;
  const nextRef = await reference("SELECT * FROM big ORDER BY _row LIMIT 10 OFFSET 10");

  t = Date.now();
  await session.frame.locator('#head th[data-column="smiles"]').click();
  mark = await rendered(session.frame, mark, `0:${N}:`);
  await session.frame.locator('#head th[data-column="smiles"]').click();
  mark = await rendered(session.frame, mark, `0:${N}:`);
  const sorted = Date.now() - t;
  const sortedRef = await reference("SELECT * FROM big ORDER BY smiles DESC NULLS LAST, _row LIMIT 10");

  t = Date.now();
  await session.frame.locator("#substructure").fill(QUERY);
  await session.frame.locator("#apply").click();
  mark = await rendered(session.frame, mark, "0:");
  const filtered = Date.now() - t;
  const matched = Number(mark.split(":")[1]);
  t = Date.now();
  await session.frame.locator("#next").click();
  mark = await rendered(session.frame, mark, "10:");
  const filteredNext = Date.now() - t;
  await session.close();

  const program = [
    "import sys, time",
    "from rdkit import Chem, RDLogger",
    "RDLogger.DisableLog('rdApp.*')",
    "lines = open(sys.argv[1]).read().split('\\n')",
    `q = Chem.MolFromSmarts(${JSON.stringify(QUERY)})`,
    "t = time.time(); n = 0",
    "for line in lines:",
    "    s = line.split()[0] if line.strip() else ''",
    "    m = Chem.MolFromSmiles(s) if s else None",
    "    n += 1 if m is not None and m.HasSubstructMatch(q) else 0",
    "print(n, time.time() - t)",
  ].join("\n");
  const [nativeCount, nativeSeconds] = execFileSync("/usr/bin/python3", ["-c", program, join(dir, "import", "big.smi")], { encoding: "utf8" })
    .trim()
    .split(" ");

  console.log(`\n## table app, ${N.toLocaleString("en-US")} rows (NCI first_5K repeated), 2 workers\n`);
  console.log("| step | app (host to page drawn) | reference | ratio |");
  console.log("|---|---:|---|---:|");
  console.log(
    `| first page (of which the frame loaded and handed the result: ${seconds(handed)}) | ${seconds(first)} | chembl_dataframe_query of the page ${seconds(firstRef)} | ${(first / firstRef).toFixed(1)} |`,
  );
  console.log(`| next page | ${seconds(next)} | the same query ${seconds(nextRef)} | ${(next / nextRef).toFixed(1)} |`);
  console.log(
    `| sort by smiles, descending (two clicks) | ${seconds(sorted)} | the ORDER BY query ${seconds(sortedRef)} | ${(sorted / sortedRef).toFixed(1)} |`,
  );
  console.log(
    `| substructure ${QUERY}: first page (${matched.toLocaleString("en-US")} rows match; native ${nativeCount}) | ${seconds(filtered)} | native RDKit match, 1 core, ${Number(nativeSeconds).toFixed(2)} s | ${(filtered / 1000 / Number(nativeSeconds)).toFixed(2)} |`,
  );
  console.log(`| substructure: next page (cached) | ${seconds(filteredNext)} | | |`);

  console.log("\n| app | bytes | gzip |\n|---|---:|---:|");
  for (const name of ["table", "viewer3d", "plot"]) {
    const read = await server.request(`read-${name}`, "resources/read", { uri: `ui://chematic/${name}` });
    const text = (read.result as { contents: { text: string }[] }).contents[0]!.text;
    console.log(`| ui://chematic/${name} | ${Buffer.byteLength(text).toLocaleString("en-US")} | ${gzipSync(text).length.toLocaleString("en-US")} |`);
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

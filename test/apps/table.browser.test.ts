/**
 * The molecule table app (ui://chematic/table) in real headless Chromium, through the ext-apps SDK's host side
 * (test/helpers/app-host.ts): a 2,000-row canvas table (RDKit's NCI first_5K.smi, with mw and logp columns) opened
 * from canvas_annotate's result, drawn page by page with molecule_table_page calls through the bridge, sorted by a
 * column (as chembl_dataframe_query's ORDER BY), filtered by a substructure (as many rows as native RDKit finds,
 * the match highlighted), and a selection sent back as a user message. Screenshots go to build/screenshots/.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Frame } from "playwright-core";
import { appsServer, callTool, chromiumMissing, launchChromium, openApp } from "../helpers/app-host.js";
import { nativeRDKitMissing, oracleOutput, requireOracles, skipOracle } from "../helpers/oracle.js";
import type { ServerProcess } from "../helpers/server-process.js";

/** The page's DOM as the functions run in the frame see it (the tests compile without the DOM library). */
interface Node {
  dataset: Record<string, string | undefined>;
  textContent: string | null;
  children: ArrayLike<Node>;
  querySelector(selector: string): Node | null;
  alt?: string;
  src?: string;
}
declare const document: { body: Node; querySelectorAll(selector: string): Iterable<Node> & ArrayLike<Node> };

const SHOTS = new URL("../../screenshots/", import.meta.url);
const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const ROWS = 2_000;
const QUERY = "c1ccccc1C(=O)O";
const missing = chromiumMissing() ?? (existsSync(NCI) ? undefined : `no ${NCI} (Debian package rdkit-data)`);
let browser: Browser | undefined;
let server: ServerProcess | undefined;
let dir: string | undefined;

before(async () => {
  if (missing) return;
  mkdirSync(SHOTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), "chematic-table-"));
  mkdirSync(join(dir, "import"));
  writeFileSync(join(dir, "import", "nci.smi"), readFileSync(NCI, "utf8").split("\n").slice(0, ROWS).join("\n") + "\n");
  browser = await launchChromium();
  server = await appsServer({ CHEMATIC_IMPORT_DIR: join(dir, "import") });
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const structured = (r: Record<string, unknown>) => r.structuredContent as Record<string, unknown>;

/** Waits until the app has rendered a page after `before` whose marker starts with `prefix` (offset:total:). */
async function rendered(frame: Frame, before: string | undefined, prefix = ""): Promise<string> {
  await frame.waitForFunction(
    ([b, p]) => {
      const r = document.body.dataset.rendered;
      return r !== undefined && r !== b && r.startsWith(p);
    },
    [before, prefix] as const,
    { timeout: 60_000 },
  );
  return (await frame.evaluate(() => document.body.dataset.rendered))!;
}

/** The displayed values of one column, in row order. */
function columnValues(frame: Frame, column: string): Promise<string[]> {
  return frame.evaluate((name) => {
    const headers = [...document.querySelectorAll("#head tr:first-child th")];
    const k = headers.findIndex((h) => h.dataset.column === name);
    return [...document.querySelectorAll("#rows tr")].map((tr) => tr.children[k]!.textContent ?? "");
  }, column);
}

test("the table app pages, sorts and filters a 2,000-row canvas table and sends a selection back", async (t) => {
  if (missing) {
    assert.ok(!requireOracles(), `CHEMATIC_REQUIRE_ORACLES is set but ${missing}`);
    t.skip(missing);
    return;
  }
  const imported = structured(await callTool(server!, "canvas_import", { path: "nci.smi", table: "nci" }));
  const canvasId = imported.canvas_id as string;
  assert.equal((imported.counts as { table_rows: number }).table_rows, ROWS);
  const args = { canvas_id: canvasId, table: "nci", columns: ["mw", "logp"] };
  const session = await openApp(browser!, server!, { uri: "ui://chematic/table", tool: "canvas_annotate", args, height: 900 });
  try {
    const frame = session.frame;
    // First page: ten rows, each drawn (the app asks again for drawings a page's answer left out).
    let mark = await rendered(frame, undefined, `0:${ROWS}:`);
    assert.equal(await frame.locator("#rows tr").count(), 10);
    assert.equal(await frame.locator("#rows td.structure img").count(), 10, "every row of the page is drawn");
    assert.equal(mark.split(":")[2], "10");
    assert.match(await frame.locator("#page").innerText(), /Page 1 of 200 · 2000 rows/);
    writeFileSync(new URL("table-first-page.png", SHOTS), await session.page.screenshot({ fullPage: true }));

    // The next page comes through the bridge: the host recorded the tools/call with the offset.
    await frame.locator("#next").click();
    mark = await rendered(frame, mark, `10:${ROWS}:`);
    const calls = (await session.recorded()).toolCalls;
    assert.ok(
      calls.some((c) => c.name === "molecule_table_page" && c.arguments?.offset === 10 && c.arguments?.table === "nci"),
      `a molecule_table_page call with offset 10 (${JSON.stringify(calls.map((c) => c.arguments?.offset))})`,
    );
    assert.ok(
      calls.every((c) => c.name === "molecule_table_page" && (c.arguments?.limit as number) <= 10),
      "never more than a page at once",
    );

    // Sorted by mw (descending on a second click): the values shown are chembl_dataframe_query's ORDER BY.
    await frame.locator('#head th[data-column="mw"]').click();
    mark = await rendered(frame, mark, `0:${ROWS}:`);
    await frame.locator('#head th[data-column="mw"]').click();
    mark = await rendered(frame, mark, `0:${ROWS}:`);
    const shown = await columnValues(frame, "mw");
    const reference = structured(
      await callTool(server!, "chembl_dataframe_query", { canvas_id: canvasId, sql: "SELECT mw FROM nci ORDER BY mw DESC NULLS LAST LIMIT 10" }),
    );
    assert.deepEqual(
      shown.map(Number),
      (reference.rows as Array<{ mw: number }>).map((r) => Math.round(r.mw * 1000) / 1000),
    );
    assert.equal(await frame.locator('#head th[aria-sort="descending"]').getAttribute("data-column"), "mw");
    writeFileSync(new URL("table-sorted.png", SHOTS), await session.page.screenshot({ fullPage: true }));

    // Filtered by a substructure: as many rows as native RDKit finds in the same molecules, the match highlighted.
    await frame.locator("#substructure").fill(QUERY);
    await frame.locator("#apply").click();
    mark = await rendered(frame, mark, "0:");
    const total = Number(mark.split(":")[1]);
    const why = await nativeRDKitMissing("from rdkit import Chem");
    if (why) skipOracle(t, why);
    else {
      const smiles: string[] = [];
      for (const offset of [0, 1000]) {
        const part = structured(
          await callTool(server!, "chembl_dataframe_query", {
            canvas_id: canvasId,
            sql: `SELECT smiles FROM nci ORDER BY _row LIMIT 1000 OFFSET ${offset}`,
            max_rows: 1000,
          }),
        );
        smiles.push(...(part.rows as Array<{ smiles: string | null }>).map((r) => r.smiles ?? ""));
      }
      const program = [
        "import sys",
        "from rdkit import Chem",
        `q = Chem.MolFromSmarts(${JSON.stringify(QUERY)})`,
        "n = 0",
        "for line in sys.stdin.read().split('\\n'):",
        "    m = Chem.MolFromSmiles(line) if line else None",
        "    n += 1 if m is not None and m.HasSubstructMatch(q) else 0",
        "print(n)",
      ].join("\n");
      const native = Number((await oracleOutput({ program }, { input: smiles.join("\n") })).trim());
      assert.ok(native > 10, `native RDKit finds ${native} rows with ${QUERY}`);
      assert.equal(total, native, "the filtered total is native RDKit's count of matching rows");
    }
    const sources = await frame.locator("#rows td.structure img").evaluateAll((imgs) => imgs.map((i) => (i as unknown as Node).src ?? ""));
    assert.ok(sources.length > 0);
    assert.ok(
      sources.every((s) => decodeURIComponent(s).includes("#FF7F7F")),
      "every drawing carries the highlight colour",
    );
    writeFileSync(new URL("table-filtered.png", SHOTS), await session.page.screenshot({ fullPage: true }));

    // A selection sent back: the host recorded a ui/message naming the rows, and a model-context update.
    const boxes = frame.locator('#rows input[type="checkbox"]');
    await boxes.nth(0).check();
    await boxes.nth(2).check();
    const picked = await frame.evaluate(() =>
      [0, 2].map((i) => {
        const img = document.querySelectorAll("#rows tr")[i]!.querySelector("img");
        return img?.alt ?? "";
      }),
    );
    await frame.locator("#send").click();
    await frame.waitForSelector('body[data-sent="2"]', { timeout: 10_000 });
    const { messages, contexts } = await session.recorded();
    assert.equal(messages.length, 1);
    const text = JSON.stringify(messages[0]);
    for (const s of picked) assert.ok(text.includes(JSON.stringify(s).slice(1, -1)), `the message names ${s}`);
    assert.match(text, /Selected 2 molecules from canvas/);
    assert.equal(contexts.length, 1);
    writeFileSync(new URL("table-selection.png", SHOTS), await session.page.screenshot({ fullPage: true }));
    assert.deepEqual(session.requests, [], "the app fetched nothing");
  } finally {
    await session.close();
  }
});

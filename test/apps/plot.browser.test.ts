/**
 * The plot app (ui://chematic/plot) in real headless Chromium through the ext-apps SDK's host side: opened from a
 * real plot call (the BOILED-Egg of 500 NCI molecules), it shows the tool's PNG at once, then asks plot_view for
 * the same chart as a Vega specification and runs it (Vega's runtime under the CSP-safe interpreter: the host page's
 * CSP allows no eval); a click picks a point and "Send" hands the host a message naming its SMILES. A scatter of a
 * numeric column pair is drawn the same way. Screenshots go to build/screenshots/.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { appsServer, callTool, chromiumMissing, launchChromium, openApp } from "../helpers/app-host.js";
import { requireOracles } from "../helpers/oracle.js";
import type { ServerProcess } from "../helpers/server-process.js";

const SHOTS = new URL("../../screenshots/", import.meta.url);
const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const ROWS = 500;
const missing = chromiumMissing() ?? (existsSync(NCI) ? undefined : `no ${NCI} (Debian package rdkit-data)`);
let browser: Browser | undefined;
let server: ServerProcess | undefined;
let dir: string | undefined;
let canvasId: string;

before(async () => {
  if (missing) return;
  mkdirSync(SHOTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), "chematic-plot-app-"));
  mkdirSync(join(dir, "import"));
  writeFileSync(join(dir, "import", "nci.smi"), readFileSync(NCI, "utf8").split("\n").slice(0, ROWS).join("\n") + "\n");
  browser = await launchChromium();
  server = await appsServer({ CHEMATIC_IMPORT_DIR: join(dir, "import") });
  const imported = (await callTool(server, "canvas_import", { path: "nci.smi", table: "nci" })).structuredContent as { canvas_id: string };
  canvasId = imported.canvas_id;
  await callTool(server, "canvas_annotate", { canvas_id: canvasId, table: "nci", columns: ["mw", "logp"] });
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function skipped(t: { skip(m: string): void }): boolean {
  if (!missing) return false;
  assert.ok(!requireOracles(), `CHEMATIC_REQUIRE_ORACLES is set but ${missing}`);
  t.skip(missing);
  return true;
}

test("the BOILED-Egg of 500 molecules: the PNG, then the interactive chart; a picked point goes back as a message", async (t) => {
  if (skipped(t)) return;
  const args = { canvas_id: canvasId, table: "nci", kind: "boiled_egg" };
  const session = await openApp(browser!, server!, { uri: "ui://chematic/plot", tool: "plot", args, height: 700 });
  try {
    const { frame } = session;
    await frame.waitForSelector('body[data-interactive="true"]', { timeout: 60_000 });
    const calls = (await session.recorded()).toolCalls;
    assert.deepEqual(
      calls.map((c) => [c.name, c.arguments]),
      [["plot_view", args]],
      "the app asked plot_view once, with the plot's own arguments",
    );
    // Vega drew every point the plot tool drew: one SVG path per mark in the points' group.
    const plotted = (session.result.structuredContent as { rows_plotted: number }).rows_plotted;
    const view = (await callTool(server!, "plot_view", args)).structuredContent as { points: number; mode: string };
    assert.equal(view.mode, "points");
    assert.equal(view.points, plotted);
    const marks = await frame.locator("#plot svg g.mark-symbol.role-mark path").count();
    assert.equal(marks, plotted, "every point is a mark in the interactive chart");
    writeFileSync(new URL("plot-boiled-egg.png", SHOTS), await session.page.screenshot());

    // Hover shows the point's values; a click picks it; Send hands the host a message with its SMILES.
    const point = frame.locator("#plot svg g.mark-symbol.role-mark path").first();
    await point.hover({ force: true });
    await frame.waitForSelector("#tip:not([hidden])", { timeout: 5_000 });
    const tip = await frame.locator("#tip").innerText();
    assert.match(tip, /smiles/);
    await point.click({ force: true });
    await frame.waitForSelector('body[data-picked="1"]', { timeout: 5_000 });
    const smiles = /smiles\s+(\S+)/.exec(tip)![1]!;
    await frame.locator("#send").click();
    await session.page.waitForFunction(() => (globalThis as unknown as { chematicHost: { messages: unknown[] } }).chematicHost.messages.length > 0);
    const { messages } = await session.recorded();
    const text = JSON.stringify(messages[0]);
    assert.ok(text.includes(smiles), `the message names the picked molecule (${smiles})`);
    writeFileSync(new URL("plot-boiled-egg-picked.png", SHOTS), await session.page.screenshot());
    assert.deepEqual(session.requests, [], "the app fetched nothing");
  } finally {
    await session.close();
  }
});

test("a scatter coloured by a column runs interactive too", async (t) => {
  if (skipped(t)) return;
  const args = { canvas_id: canvasId, table: "nci", kind: "scatter", x: "mw", y: "logp", color: "logp" };
  const session = await openApp(browser!, server!, { uri: "ui://chematic/plot", tool: "plot", args, height: 700 });
  try {
    await session.frame.waitForSelector('body[data-interactive="true"]', { timeout: 60_000 });
    const plotted = (session.result.structuredContent as { rows_plotted: number }).rows_plotted;
    assert.equal(await session.frame.locator("#plot svg g.mark-symbol.role-mark path").count(), plotted);
    writeFileSync(new URL("plot-scatter.png", SHOTS), await session.page.screenshot());
  } finally {
    await session.close();
  }
});

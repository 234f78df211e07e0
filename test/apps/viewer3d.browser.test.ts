/**
 * The 3D viewer app (ui://chematic/viewer3d) in real headless Chromium, through the ext-apps SDK's host side
 * (test/helpers/app-host.ts): generate_3d's conformers drawn by the bundled 3Dmol.js with nothing fetched, another
 * conformer shown on a click. Screenshots go to build/screenshots/.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { appsServer, chromiumMissing, launchChromium, openApp } from "../helpers/app-host.js";
import { countPixels, decodePng } from "../helpers/png.js";
import { requireOracles } from "../helpers/oracle.js";
import type { ServerProcess } from "../helpers/server-process.js";

const SHOTS = new URL("../../screenshots/", import.meta.url);
const missing = chromiumMissing();
let browser: Browser | undefined;
let server: ServerProcess | undefined;

before(async () => {
  if (missing) return;
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
  server = await appsServer();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Pixels of a screenshot that are not the white background (the drawn molecule). */
function drawnPixels(png: Buffer): number {
  return countPixels(decodePng(png), (r, g, b) => r < 235 || g < 235 || b < 235);
}

test("the 3D viewer shows generate_3d's conformers, switching on a click, with no request made", async (t) => {
  if (missing) {
    assert.ok(!requireOracles(), `CHEMATIC_REQUIRE_ORACLES is set but ${missing}`);
    t.skip(missing);
    return;
  }
  // Ibuprofen's (S) enantiomer: a stereocentre, a ring, a flexible chain (distinct conformers).
  const args = { smiles: "CC(C)Cc1ccc(cc1)[C@H](C)C(=O)O", num_conformers: 3, seed: 42 };
  const session = await openApp(browser!, server!, { uri: "ui://chematic/viewer3d", tool: "generate_3d", args });
  try {
    const content = session.result.structuredContent as { conformers: unknown[]; molblock: string };
    assert.ok(content.conformers.length >= 2, "generate_3d gave at least two conformers");
    await session.frame.waitForSelector('body[data-rendered="0:0"]', { timeout: 30_000 });
    const viewer = session.frame.locator("#viewer");
    await session.page.waitForTimeout(300);
    const first = await viewer.screenshot();
    writeFileSync(new URL("viewer3d-conformer1.png", SHOTS), first);
    const atomsInMolblock = Number(content.molblock.split("\n")[3]!.slice(0, 3));
    assert.match(await session.frame.locator("#meta").innerText(), new RegExp(`^${atomsInMolblock} atoms`));
    const drawn = drawnPixels(first);
    assert.ok(drawn > 2_000, `the molecule is drawn (${drawn} non-background pixels)`);
    const buttons = session.frame.locator("#conformers button");
    assert.equal(await buttons.count(), content.conformers.length);
    assert.match(await buttons.nth(0).innerText(), /ΔE 0\.00 kcal\/mol/);
    await buttons.nth(1).click();
    await session.frame.waitForSelector('body[data-rendered="0:1"]', { timeout: 10_000 });
    await session.page.waitForTimeout(300);
    const second = await viewer.screenshot();
    writeFileSync(new URL("viewer3d-conformer2.png", SHOTS), second);
    assert.ok(drawnPixels(second) > 2_000, "the second conformer is drawn");
    assert.notDeepEqual(second, first, "another conformer, another picture");
    writeFileSync(new URL("viewer3d-page.png", SHOTS), await session.page.screenshot());
    assert.deepEqual(session.requests, [], "the app fetched nothing");
  } finally {
    await session.close();
  }
});

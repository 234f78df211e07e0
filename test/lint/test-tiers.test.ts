/**
 * The test tiers (issue 38 item 6, scripts/run-tests.mjs): every file the slow tier names by hand exists, so the list
 * cannot rot into naming files that were renamed or removed; the fast tier holds most test files and none of the
 * slow tier's. The runner's longest-first list names existing files too, and orders every file exactly once.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface Tiers {
  SLOW_FILES: Record<string, number>;
  LONGEST: Record<string, number>;
  isSlow: (rel: string) => boolean;
  runningOrder: (rels: string[]) => string[];
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith(".test.ts") ? [path] : [];
  });
}

test("the slow tier's named files exist, and the fast tier keeps most test files", async () => {
  const tiers = (await import(pathToFileURL(join(ROOT, "scripts", "run-tests.mjs")).href)) as Tiers;
  for (const rel of Object.keys(tiers.SLOW_FILES)) assert.ok(existsSync(join(ROOT, "test", rel.replace(/\.js$/, ".ts"))), `${rel} is a test file`);
  const all = sources(join(ROOT, "test")).map((f) => relative(join(ROOT, "test"), f).split(sep).join("/").replace(/\.ts$/, ".js"));
  const fast = all.filter((rel) => !tiers.isSlow(rel));
  assert.ok(fast.length >= all.length / 2, `${fast.length} of ${all.length} files are in the fast tier`);
  assert.ok(!fast.some((rel) => rel.endsWith(".oracle.test.js") || rel.startsWith("e2e/")));
});

test("the runner's longest-first list names test files, and its order runs each file once, the longest first", async () => {
  const tiers = (await import(pathToFileURL(join(ROOT, "scripts", "run-tests.mjs")).href)) as Tiers;
  for (const rel of Object.keys(tiers.LONGEST)) assert.ok(existsSync(join(ROOT, "test", rel.replace(/\.js$/, ".ts"))), `${rel} is a test file`);
  const all = sources(join(ROOT, "test")).map((f) => relative(join(ROOT, "test"), f).split(sep).join("/").replace(/\.ts$/, ".js"));
  const order = tiers.runningOrder(all);
  assert.deepEqual([...order].sort(), [...all].sort());
  const cost = (rel: string) => tiers.LONGEST[rel] ?? 0;
  assert.ok(
    order.every((rel, i) => i === 0 || cost(order[i - 1]!) >= cost(rel)),
    "longest first",
  );
  assert.deepEqual(new Set(order.slice(0, Object.keys(tiers.LONGEST).length)), new Set(Object.keys(tiers.LONGEST)));
});

#!/usr/bin/env node
/**
 * The test tiers. `npm test` runs every test file (what .ci/run calls); `npm run test:fast` runs all but the slow
 * tier, for the inner loop. The slow tier: the native-RDKit oracle tests (*.oracle.test), end-to-end servers
 * (test/e2e), the fuzzers, the conformance suite, the package and bundle builds, the golden wire answers, and the
 * files in SLOW below, each measured (seconds alone on the 2-core machine, other work idle) at over 8 s.
 *
 * Usage: node scripts/run-tests.mjs fast|slow|all   (after the build: the files are build/test/**\/*.test.js)
 */
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath, URL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TESTS = join(ROOT, "build", "test");

/** Folders whose every file is slow (servers started per test, builds, fuzzing, the suite). */
export const SLOW_FOLDERS = ["e2e", "fuzz", "conformance", "package", "golden"];

/** Single files of the slow tier, with what they take alone (seconds). */
export const SLOW_FILES = {
  "server/pool.test.js": 37, // workers started, replaced and timed out on purpose
  "server/pool-memory.test.js": 27, // 10,000 calls to watch the WASM heap
  "server/list.test.js": 25, // 250-entry lists through every per-molecule tool
  "server/host-rules.test.js": 24, // tools/list of every tool set and era through the real server
  "server/toolsets.test.js": 21, // a server per tool set
  "domain/chem/moljson.test.js": 14, // the NCI first_5K round trip
  "tools/find_mcs.test.js": 13,
  "transport/http.test.js": 13,
  "tools/retrosynthesis.test.js": 10,
  "tools/depict.test.js": 10,
  "tools/tanimoto.test.js": 10,
  "server/answer-cap.test.js": 9,
  "tools/canvas_import.test.js": 9,
  "tools/canvas_import-clean.test.js": 19, // a 200-record SDF written and standardised by native RDKit, then imported
};

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? testFiles(path) : name.endsWith(".test.js") ? [path] : [];
  });
}

/** Whether a test file (relative to build/test, with /) is in the slow tier. */
export function isSlow(rel) {
  return /\.oracle\.test\.js$/.test(rel) || SLOW_FOLDERS.some((f) => rel.startsWith(`${f}/`)) || rel in SLOW_FILES;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tier = process.argv[2] ?? "fast";
  if (!["fast", "slow", "all"].includes(tier)) {
    console.error("usage: node scripts/run-tests.mjs fast|slow|all");
    process.exit(2);
  }
  const files = testFiles(TESTS)
    .map((f) => relative(TESTS, f).split(sep).join("/"))
    .filter((rel) => tier === "all" || (tier === "slow") === isSlow(rel))
    .sort()
    .map((rel) => join(TESTS, rel));
  const started = Date.now();
  const child = spawn(process.execPath, ["--test", "--test-concurrency=2", "--test-timeout=600000", "--test-force-exit", ...files], { stdio: "inherit" });
  child.on("close", (code) => {
    console.error(`${tier} tier: ${files.length} test files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    process.exit(code ?? 1);
  });
}

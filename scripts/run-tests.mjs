#!/usr/bin/env node
/**
 * The test runner and its tiers. `npm test` runs every test file (what .ci/run calls); `npm run test:fast` runs all
 * but the slow tier, for the inner loop. The slow tier: the native-RDKit oracle tests (*.oracle.test), end-to-end servers
 * (test/e2e), the fuzzers, the conformance suite, the package and bundle builds, the golden wire answers, and the
 * files in SLOW below, each measured (seconds alone on the 2-core machine, other work idle) at over 8 s.
 *
 * Two files run at a time (node:test's run(), as `node --test --test-concurrency=2` would), the longest first
 * (LONGEST below), then the rest in path order. `node --test` itself sorts the files it is given, so the 200-second
 * triage file could start last and run alone at the end; and given the folder build/test it also runs every helper
 * and fixture module under it as a test file (33 processes that test nothing). Each test has at most 10 minutes
 * (--test-timeout), and each file's process ends when its tests are done (--test-force-exit, run()'s forceExit).
 *
 * Usage: node scripts/run-tests.mjs fast|slow|all   (after the build: the files are build/test/**\/*.test.js)
 */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { run } from "node:test";
import { spec, tap } from "node:test/reporters";
import { join, relative, sep } from "node:path";
import { fileURLToPath, URL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TESTS = join(ROOT, "build", "test");
const TEST_TIMEOUT_MS = 600_000;

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

/**
 * The longest files, longest first, with the seconds each took in the last clean-clone CI run (two files at a time,
 * so about twice what they take alone): started first, they end before the short files do, which fill the two slots
 * to the end. Files not named here run after these, in path order.
 */
export const LONGEST = {
  "e2e/canvas-triage.oracle.test.js": 208,
  "e2e/workbench.oracle.test.js": 85,
  "golden/wire.test.js": 65,
  "package/pack.test.js": 58,
  "server/pool.test.js": 47,
  "e2e/doctor.test.js": 42,
  "e2e/canvas-restart.test.js": 39,
  "e2e/stdio-concurrency.test.js": 38,
  "e2e/chembl.test.js": 37,
  "server/list.test.js": 33,
  "fuzz/giant-molecules.fuzz.test.js": 33,
  "tools/generate_3d.oracle.test.js": 31,
  "domain/chem/brics.oracle.test.js": 30,
  "e2e/http-cli.test.js": 29,
  "package/bundle.test.js": 28,
  "tools/canvas_annotate-kinds.oracle.test.js": 26,
  "fuzz/chem-pool.fuzz.test.js": 23,
  "e2e/nginx-replicas.test.js": 23,
  "domain/chem/alerts.oracle.test.js": 22,
  "server/pool-memory.test.js": 22,
  "e2e/stdio-wire.test.js": 20,
  "e2e/official-clients.test.js": 19,
  "tools/molblock-roundtrip.oracle.test.js": 19,
  "tools/standardize.oracle.test.js": 18,
  "server/toolsets.test.js": 17,
  "e2e/chembl-sqlite.test.js": 16,
};

/** Test files (relative to build/test, with /) in running order: LONGEST's longest first, then the rest in path order. */
export function runningOrder(rels) {
  const cost = (rel) => LONGEST[rel] ?? 0;
  return [...rels].sort((a, b) => cost(b) - cost(a) || (a < b ? -1 : a > b ? 1 : 0));
}

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
  const files = runningOrder(
    testFiles(TESTS)
      .map((f) => relative(TESTS, f).split(sep).join("/"))
      .filter((rel) => tier === "all" || (tier === "slow") === isSlow(rel)),
  ).map((rel) => join(TESTS, rel));
  // The 10-minute bound is each test's, as `node --test --test-timeout` sets it: the files' processes inherit this
  // process's Node options, so this process runs with the flag (started again with it when it was not).
  if (!process.execArgv.some((a) => a.startsWith("--test-timeout"))) {
    const again = spawnSync(process.execPath, [`--test-timeout=${TEST_TIMEOUT_MS}`, ...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit" });
    process.exit(again.status ?? 1);
  }
  const started = Date.now();
  const stream = run({ files, concurrency: 2, forceExit: true });
  // A failing todo test is reported, not failed (as `node --test` exits).
  stream.on("test:fail", (event) => {
    if (!event.todo) process.exitCode = 1;
  });
  stream.compose(process.stdout.isTTY ? new spec() : tap).pipe(process.stdout);
  stream.on("close", () => console.error(`${tier} tier: ${files.length} test files in ${((Date.now() - started) / 1000).toFixed(1)} s`));
}

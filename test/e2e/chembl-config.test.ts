/**
 * The ChEMBL configuration variables at start-up (issue 13, item 13): a junk or out-of-range value of
 * CHEMBL_SPILL_DEADLINE_MS, CHEMBL_MAX_PAGE_SIZE, CHEMBL_DEFAULT_LIMIT or CHEMBL_MAX_CONCURRENT_PAGES stops
 * the CLI with exit code 2 and a first stderr line naming the variable, as the README says.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { CLI_PATH } from "../helpers/server-process.js";

const run = promisify(execFile);

const BAD: ReadonlyArray<readonly [string, string]> = [
  ["CHEMBL_SPILL_DEADLINE_MS", "9999"],
  ["CHEMBL_SPILL_DEADLINE_MS", "600001"],
  ["CHEMBL_SPILL_DEADLINE_MS", "soon"],
  ["CHEMBL_MAX_PAGE_SIZE", "0"],
  ["CHEMBL_MAX_PAGE_SIZE", "1001"],
  ["CHEMBL_MAX_PAGE_SIZE", "1e3"],
  ["CHEMBL_DEFAULT_LIMIT", "0"],
  ["CHEMBL_DEFAULT_LIMIT", "101"],
  ["CHEMBL_DEFAULT_LIMIT", "ten"],
  ["CHEMBL_MAX_CONCURRENT_PAGES", "7"],
  ["CHEMBL_MAX_CONCURRENT_PAGES", "0"],
];

test("a junk or out-of-range ChEMBL variable stops start-up with exit 2, naming the variable", { timeout: 120_000 }, async () => {
  // CHEMATIC_OFFLINE keeps every call off the network: with a good configuration the call exits 1 (OFFLINE).
  const call = (extra: Record<string, string>) =>
    run(process.execPath, [CLI_PATH, "call", "chembl_search_molecules", '{"query":"aspirin"}'], {
      env: { ...process.env, CHEMATIC_OFFLINE: "1", CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "warn", ...extra },
    }).then(
      () => assert.fail("should exit non-zero"),
      (e: { code: number; stderr: string }) => e,
    );
  const outcomes = await Promise.all(BAD.map(([name, value]) => call({ [name]: value })));
  for (const [i, [name, value]] of BAD.entries()) {
    const e = outcomes[i]!;
    assert.equal(e.code, 2, `${name}=${value}: ${e.stderr}`);
    assert.ok(e.stderr.trim().split("\n")[0]!.includes(name), `${name}=${value}: ${e.stderr}`);
  }
  const good = await call({ CHEMBL_SPILL_DEADLINE_MS: "120000", CHEMBL_MAX_PAGE_SIZE: "500", CHEMBL_DEFAULT_LIMIT: "10", CHEMBL_MAX_CONCURRENT_PAGES: "6" });
  assert.equal(good.code, 1, good.stderr);
  assert.match(good.stderr, /"OFFLINE"/);
});

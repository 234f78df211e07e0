/**
 * The oracle fixtures (test/fixtures/oracle/, issue 38 item 6) are what scripts/make-oracle-fixtures.py writes: with
 * native RDKit installed the script is run into a temporary folder and the checked-in files must equal its output,
 * byte for byte, none missing and none extra. Without native RDKit the check is skipped, saying so (a failure under
 * CHEMATIC_REQUIRE_ORACLES). Each fixture also stays small: they are native answers to a few fixed molecules.
 * And no test file starts Python of its own: native RDKit is reached through test/helpers/oracle.ts, whose one
 * process a test process shares.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { projectRoot } from "../../src/domain/assets.js";
import { nativeRDKitMissing, ORACLE_FIXTURES, oracleOutput, skipOracle, type OracleFixture } from "../helpers/oracle.js";

const MAX_FIXTURE_BYTES = 64 * 1024;

const jsonFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();

test("each oracle fixture is a request and native RDKit's answer, made by scripts/make-oracle-fixtures.py, and small", () => {
  const files = jsonFiles(ORACLE_FIXTURES);
  assert.ok(files.length > 0, "there are fixtures");
  for (const f of files) {
    const path = join(ORACLE_FIXTURES, f);
    assert.ok(statSync(path).size <= MAX_FIXTURE_BYTES, `${f}: ${statSync(path).size} bytes`);
    const fixture = JSON.parse(readFileSync(path, "utf8")) as OracleFixture;
    assert.equal(fixture.made_by, "scripts/make-oracle-fixtures.py", f);
    assert.match(fixture.rdkit, /^2022\.09\./, `${f}: answered by the native RDKit the oracle tests name (Debian's 2022.09)`);
    assert.ok((fixture.request.script === undefined) !== (fixture.request.program === undefined), `${f}: a script or a program`);
    assert.equal(typeof fixture.stdout, "string", f);
  }
});

test("the checked-in oracle fixtures equal what scripts/make-oracle-fixtures.py writes now", async (t) => {
  const missing = await nativeRDKitMissing();
  if (missing !== undefined) return skipOracle(t, `the fixtures cannot be remade here, native RDKit is missing: ${missing}`);
  const out = mkdtempSync(join(tmpdir(), "oracle-fixtures-"));
  try {
    await oracleOutput({ script: "make-oracle-fixtures.py" }, { args: ["--out", out], timeoutMs: 300_000 });
    const made = jsonFiles(out);
    assert.deepEqual(jsonFiles(ORACLE_FIXTURES), made, "the same fixture files");
    for (const f of made) {
      assert.equal(
        readFileSync(join(ORACLE_FIXTURES, f), "utf8"),
        readFileSync(join(out, f), "utf8"),
        `test/fixtures/oracle/${f} differs from the script's output: run /usr/bin/python3 scripts/make-oracle-fixtures.py`,
      );
    }
    t.diagnostic(`${made.length} fixtures remade and equal`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

test("only test/helpers/oracle.ts starts Python: every other test reaches native RDKit through its shared process", () => {
  const root = join(projectRoot(), "test");
  const starts = /\b(?:spawn|spawnSync|execFile|execFileSync|exec|execSync)\(\s*(?:PYTHON|NATIVE|["'`]\/usr\/bin\/python3?["'`]|["'`]python3?["'`])/;
  const offenders = sources(root)
    .map((f) => relative(root, f).split(sep).join("/"))
    .filter((rel) => rel !== "helpers/oracle.ts" && starts.test(readFileSync(join(root, rel), "utf8")));
  assert.deepEqual(offenders, []);
});

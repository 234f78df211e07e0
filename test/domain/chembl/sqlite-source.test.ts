/**
 * The offline ChEMBL source's edges (issue 18, items 1 and 5): CHEMBL_SQLITE is parsed to an absolute
 * path; the optional driver missing, no file, and a file that is no ChEMBL dump each fail as a typed
 * UPSTREAM_UNAVAILABLE with a hint an operator can act on, and the next call tries again; the dump
 * answers under CHEMATIC_OFFLINE; the lookup sidecar is reused while the dump is unchanged and rebuilt
 * when it changes; a query past its timeout is given up (the worker replaced) and the next one answers.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadChemblConfig } from "../../../src/config.js";
import { ToolError } from "../../../src/domain/errors.js";
import { FetchTimeoutError } from "../../../src/domain/chembl/http.js";
import { ChemblService } from "../../../src/domain/chembl/service.js";
import { SqliteSource } from "../../../src/domain/chembl/sqlite/source.js";
import { buildDump, loadDriver } from "../../fixtures/chembl/dump.js";
import { chemblTools, ok, testConfig } from "../../fixtures/chembl/harness.js";
import { CLI_PATH } from "../../helpers/server-process.js";
import { execFile } from "node:child_process";
import type { FakeChembl } from "../../fixtures/chembl/fake-server.js";

const Driver = loadDriver();
const skip = Driver === null ? "the optional SQLite driver better-sqlite3 is not installed (npm install better-sqlite3@12)" : false;
const fakeless = { baseUrl: "http://127.0.0.1:9/unused" } as FakeChembl;

test("CHEMBL_SQLITE is read as an absolute path; unset leaves the web API", () => {
  assert.equal(loadChemblConfig({ CHEMBL_SQLITE: "dumps/chembl_36.db" }).sqlitePath, resolve("dumps/chembl_36.db"));
  assert.equal(loadChemblConfig({}).sqlitePath, undefined);
  assert.equal(loadChemblConfig({ CHEMBL_SQLITE: "  " }).sqlitePath, undefined);
});

async function openError(source: SqliteSource): Promise<ToolError> {
  try {
    await source.open();
  } catch (e) {
    assert.ok(e instanceof ToolError, String(e));
    return e;
  } finally {
    await source.close();
  }
  throw new Error("the dump opened");
}

describe("the dump cannot be used: typed errors with a hint", () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "chembl-bad-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("the optional driver is missing: driver_missing, and the hint says how to install it or go back to the web API", async () => {
    const path = join(dir, "any.db");
    writeFileSync(path, "");
    const e = await openError(new SqliteSource(path, process.env, "better-sqlite3-not-installed-here"));
    assert.equal(e.code, "UPSTREAM_UNAVAILABLE");
    assert.equal(e.details.reason, "driver_missing");
    assert.match(e.hint, /npm install better-sqlite3@12/);
    assert.match(e.hint, /unset CHEMBL_SQLITE/);
  });

  test("no file, and a file that is no ChEMBL dump", { skip }, async () => {
    const missing = await openError(new SqliteSource(join(dir, "nowhere.db")));
    assert.equal(missing.details.reason, "file_missing");
    assert.match(missing.hint, /CHEMBL_SQLITE/);
    const path = join(dir, "empty.db");
    const db = new Driver!(path);
    db.exec("CREATE TABLE t (x)");
    db.close();
    const notChembl = await openError(new SqliteSource(path));
    assert.equal(notChembl.details.reason, "not_chembl");
    writeFileSync(join(dir, "text.db"), "not a database at all, just text that is long enough to have a header ".repeat(20));
    const unreadable = await openError(new SqliteSource(join(dir, "text.db")));
    assert.equal(unreadable.details.reason, "unreadable");
  });

  test("a tool call reports it as a typed error, not a crash", async () => {
    const path = join(dir, "absent.db");
    const service = new ChemblService({ ...testConfig(fakeless), sqlitePath: path });
    try {
      const r = await chemblTools(service).searchMolecules.run(
        { query: "aspirin" },
        {
          signal: new AbortController().signal,
          progress: () => {},
          deadline: Date.now() + 10_000,
        },
      );
      assert.fail(`answered ${JSON.stringify(r)}`);
    } catch (e) {
      assert.ok(e instanceof ToolError, String(e));
      assert.equal(e.code, "UPSTREAM_UNAVAILABLE");
    } finally {
      await service.close();
    }
  });
});

describe("a working dump", { skip }, () => {
  let dir: string;
  let path: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "chembl-dump-"));
    path = join(dir, "chembl_36.db");
    buildDump(path, Driver!);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("answers under CHEMATIC_OFFLINE (the web tools would answer OFFLINE)", async () => {
    const service = new ChemblService({ ...testConfig(fakeless), offline: true, sqlitePath: path });
    try {
      service.assertOnline();
      const { value } = await ok(chemblTools(service).searchMolecules, { query: "CHEMBL25" });
      assert.equal((value.molecules as Array<Record<string, unknown>>)[0]!.molecule_chembl_id, "CHEMBL25");
    } finally {
      await service.close();
    }
  });

  test("the sidecar is reused while the dump is unchanged, and rebuilt when it changes", async () => {
    const first = new SqliteSource(path);
    const a = await first.open();
    await first.close();
    const sidecar = a.sidecar!;
    const built = statSync(sidecar).mtimeMs;
    const second = new SqliteSource(path);
    const b = await second.open();
    await second.close();
    assert.equal(b.sidecar, sidecar);
    assert.equal(statSync(sidecar).mtimeMs, built, "reused, not rebuilt");
    const later = new Date(Date.now() + 5_000);
    utimesSync(path, later, later);
    const third = new SqliteSource(path);
    await third.open();
    await third.close();
    assert.notEqual(statSync(sidecar).mtimeMs, built, "rebuilt for the changed dump");
  });

  test("a call during the first open answers a typed error saying so (the open goes on), and the next call answers", async () => {
    const own = join(dir, "first-open.db");
    buildDump(own, Driver!);
    const steps: string[] = [];
    const source = new SqliteSource(own, process.env, undefined, (m) => steps.push(m));
    try {
      const fetch = source.fetcher("http://x/api");
      await assert.rejects(fetch("http://x/api/molecule/CHEMBL25.json", { signal: new AbortController().signal, timeoutMs: 0 }), (e: unknown) => {
        assert.ok(e instanceof ToolError, String(e));
        assert.equal(e.code, "UPSTREAM_UNAVAILABLE");
        assert.ok(["opening", "index_building"].includes(e.details.reason as string), String(e.details.reason));
        assert.match(e.hint, /chembl index/);
        return true;
      });
      const res = await fetch("http://x/api/molecule/CHEMBL25.json", { signal: new AbortController().signal, timeoutMs: 10_000 });
      assert.equal(res.status, 200);
      assert.ok(
        steps.some((m) => /building the lookup index/.test(m)),
        steps.join("; "),
      );
    } finally {
      await source.close();
    }
  });

  test("chematic-mcp chembl index builds the lookup sidecar ahead, printing its steps", async () => {
    const own = join(dir, "ahead.db");
    buildDump(own, Driver!);
    const out = await new Promise<{ code: number; stderr: string }>((done) =>
      execFile(process.execPath, [CLI_PATH, "chembl", "index"], { env: { ...process.env, CHEMBL_SQLITE: own }, timeout: 60_000 }, (e, _o, stderr) =>
        done({ code: e ? ((e as { code?: number }).code ?? -1) : 0, stderr }),
      ),
    );
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /building the lookup index \(1\//);
    assert.match(out.stderr, /ChEMBL_36; lookup index .*ahead\.db\.chematic-index\.sqlite/);
    assert.ok(statSync(`${own}.chematic-index.sqlite`).size > 0);
  });

  test("a query past its timeout is given up and the worker replaced; the next query answers", async () => {
    const source = new SqliteSource(path);
    try {
      const fetch = source.fetcher("http://x/api");
      await source.open();
      // Many requests queued behind each other with a 1 ms timeout: the later ones time out in the queue.
      const burst = await Promise.allSettled(
        Array.from({ length: 200 }, () =>
          fetch("http://x/api/activity.json?target_chembl_id=CHEMBL235&order_by=activity_id&limit=1000", {
            signal: new AbortController().signal,
            timeoutMs: 1,
          }),
        ),
      );
      assert.ok(
        burst.some((r) => r.status === "rejected" && r.reason instanceof FetchTimeoutError),
        "some requests timed out",
      );
      const res = await fetch("http://x/api/molecule/CHEMBL25.json", { signal: new AbortController().signal, timeoutMs: 10_000 });
      assert.equal(res.status, 200);
      assert.equal((JSON.parse(res.body) as Record<string, unknown>).molecule_chembl_id, "CHEMBL25");
      const miss = await fetch("http://x/api/molecule/CHEMBL12345678.json", { signal: new AbortController().signal, timeoutMs: 10_000 });
      assert.equal(miss.status, 404);
      const unknown = await fetch("http://x/api/activity.json?record_id=1", { signal: new AbortController().signal, timeoutMs: 10_000 });
      assert.equal(unknown.status, 400, "a filter the offline source does not know is refused, never ignored");
    } finally {
      await source.close();
    }
  });
});

/** A real subset of the chembl_33 dump in its official DDL (../shared, present in this workplace and beside CI's clone). */
const REAL_SUBSET = fileURLToPath(new URL("../../../../../shared/reference/chembl/sqlite/therapy-normalization_chembl_33_subset.db", import.meta.url));

describe("a real chembl_33 subset in the official DDL (molecule_dictionary, molecule_synonyms, drug_indication only)", { skip }, () => {
  let dir: string;
  let service: ChemblService;
  before(() => {
    if (!existsSync(REAL_SUBSET)) return;
    dir = mkdtempSync(join(tmpdir(), "chembl-real-"));
    copyFileSync(REAL_SUBSET, join(dir, "chembl_33_subset.db"));
    service = new ChemblService({ ...testConfig(fakeless), offline: true, sqlitePath: join(dir, "chembl_33_subset.db") });
  });
  after(async () => {
    await service?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("names, synonyms and drug indications answer from the real rows; the tables the subset lacks answer empty", async (t) => {
    if (!existsSync(REAL_SUBSET)) return t.skip(`the reference subset is absent (${REAL_SUBSET})`);
    const tools = chemblTools(service);
    const byName = await ok(tools.searchMolecules, { query: "aspirin" });
    const first = (byName.value.molecules as Array<Record<string, unknown>>)[0]!;
    assert.equal(first.molecule_chembl_id, "CHEMBL25");
    assert.equal(first.max_phase, 4);
    assert.equal((byName.value.source as Record<string, unknown>).release, null, "the subset has no version table");
    const bySynonym = await ok(tools.searchMolecules, { query: "Acetylsalicylic Acid" });
    assert.equal((bySynonym.value.molecules as Array<Record<string, unknown>>)[0]!.molecule_chembl_id, "CHEMBL25");
    const info = await ok(tools.drugInfo, { molecule_chembl_id: "CHEMBL25" });
    const indications = info.value.indications as Array<Record<string, unknown>>;
    assert.equal((info.value.indications_status as Record<string, unknown>).total_count, 157);
    // The default limit keeps 25, the furthest phase first (ChEMBL's order among equals): the approved ones lead.
    assert.equal(indications.length, 25);
    assert.equal((info.value.indications_status as Record<string, unknown>).omitted, 132);
    const phases = indications.map((i) => i.max_phase_for_ind as number);
    assert.deepEqual(
      phases,
      [...phases].sort((a, b) => b - a),
      "furthest phase first",
    );
    assert.equal(phases[0], 4);
    // Every record with a limit above the count, in ChEMBL's order among equal phases.
    const all = (await ok(tools.drugInfo, { molecule_chembl_id: "CHEMBL25", limit: 500 })).value.indications as Array<Record<string, unknown>>;
    assert.equal(all.length, 157);
    assert.equal(all.find((i) => i.max_phase_for_ind === 3)!.mesh_heading, "Atrial Fibrillation", "the first phase-3 indication in ChEMBL's order");
    assert.deepEqual(info.value.mechanisms, [], "the subset has no drug_mechanism table");
    const bio = await ok(tools.bioactivities, { molecule_chembl_id: "CHEMBL25" });
    assert.equal(bio.value.total_count, 0);
  });
});

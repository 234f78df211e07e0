/**
 * `chematic-mcp doctor` against local fakes (127.0.0.1 only): all checks pass with a working ChEMBL and
 * PubChem; unreachable, failing and hanging upstreams, a bad setting and an unusable proxy each fail with
 * what to fix (exit 1); CHEMATIC_OFFLINE skips the upstreams without contacting them.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:net";
import { CLI_PATH } from "../helpers/server-process.js";
import { startOrigin, type FakeServer } from "../helpers/fake-http.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { nodeSupported, type DoctorReport } from "../../src/doctor.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let chembl: FakeChembl;
let pubchem: FakeServer;
let hanging: Server;
let hangingPort: number;
let closedPort: number;

before(async () => {
  chembl = await new FakeChembl("new").start();
  pubchem = await startOrigin((req, res) => {
    if (req.url === "/rest/pug/compound/name/aspirin/property/SMILES,IsomericSMILES/JSON") {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ PropertyTable: { Properties: [{ CID: 2244, SMILES: "CC(=O)OC1=CC=CC=C1C(=O)O" }] } }));
    } else if (req.url?.startsWith("/broken/")) {
      res.writeHead(503, { "content-type": "text/html" }).end("<html>busy</html>");
    } else {
      res.writeHead(404, { "content-type": "application/json" }).end('{"Fault":{"Code":"PUGREST.NotFound"}}');
    }
  });
  // Accepts connections and never answers.
  hanging = createServer(() => {});
  hangingPort = await new Promise<number>((resolve) => hanging.listen(0, "127.0.0.1", () => resolve((hanging.address() as { port: number }).port)));
  // A port nothing listens on: bind, read the port, close.
  const probe = createServer();
  closedPort = await new Promise<number>((resolve) => probe.listen(0, "127.0.0.1", () => resolve((probe.address() as { port: number }).port)));
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

after(async () => {
  await chembl.stop();
  await pubchem.close();
  hanging.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function doctor(env: Record<string, string>, args: string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_PATH, "doctor", ...args],
      // No proxy variables from the machine running the tests, unless a case sets them.
      { env: { ...withoutProxies(process.env), CHEMATIC_WORKERS: "1", ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

function withoutProxies(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of [
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "CHEMATIC_OFFLINE",
    "CHEMATIC_LOG_LEVEL",
    "CHEMATIC_LOG_FORMAT",
  ])
    delete copy[name];
  return copy;
}

function report(run: Run): DoctorReport {
  return JSON.parse(run.stdout) as DoctorReport;
}

function statuses(r: DoctorReport): Record<string, string> {
  return Object.fromEntries(r.checks.map((c) => [c.name, c.status]));
}

const LOCAL_CHECKS = [
  "Node.js",
  "configuration",
  "data assets",
  "skills",
  "MCP Apps",
  "RDKit",
  "OpenChemLib",
  "chemistry tools",
  "DuckDB",
  "PNG rendering",
  "proxy",
];

test("every check passes against working upstreams: exit 0, text and JSON reports", async () => {
  const env = { CHEMBL_API_BASE_URL: chembl.baseUrl, PUBCHEM_API_BASE_URL: pubchem.url };
  const [text, json] = await Promise.all([doctor(env), doctor(env, ["--json", "--timeout-ms", "5000"])]);
  assert.equal(text.code, 0, text.stdout + text.stderr);
  assert.match(text.stdout, /^chematic-mcp doctor \d+\.\d+\.\d+/);
  assert.match(text.stdout, /All checks passed\./);
  assert.doesNotMatch(text.stdout, /\[FAIL\]/);
  assert.match(text.stdout, /\[ ok \] ChEMBL .*ChEMBL_36/);
  assert.match(text.stdout, /\[ ok \] PubChem .*CC\(=O\)OC1=CC=CC=C1C\(=O\)O/);

  assert.equal(json.code, 0, json.stdout + json.stderr);
  const r = report(json);
  assert.equal(r.ok, true);
  assert.deepEqual(Object.keys(statuses(r)), [...LOCAL_CHECKS, "ChEMBL", "PubChem"]);
  assert.ok(
    Object.values(statuses(r)).every((s) => s === "ok"),
    JSON.stringify(r, null, 2),
  );
  const byName = new Map(r.checks.map((c) => [c.name, c]));
  assert.match(byName.get("RDKit")!.detail, /RDKit MinimalLib 20\d\d\.\d\d(\.\d+)? \(WebAssembly, 8 MiB C\+\+ stack, guarded\)/);
  assert.match(byName.get("chemistry tools")!.detail, /calc_properties/);
  assert.match(byName.get("proxy")!.detail, /ChEMBL direct; PubChem direct/);
  assert.ok(chembl.requestsTo("status").length >= 2, "ChEMBL's /status was asked");
  assert.ok(
    pubchem.requests.some((q) => q.url.includes("/name/aspirin/")),
    "PubChem was asked for aspirin",
  );
});

test("failures say what to fix and exit 1: refused, erroring and hanging upstreams, a bad setting, an unusable proxy", async () => {
  const [refused, erroring, badSetting, text] = await Promise.all([
    // ChEMBL refuses connections; PubChem accepts and never answers (the short timeout applies).
    doctor({ CHEMBL_API_BASE_URL: `http://127.0.0.1:${closedPort}/chembl/api/data`, PUBCHEM_API_BASE_URL: `http://127.0.0.1:${hangingPort}` }, [
      "--json",
      "--timeout-ms",
      "500",
    ]),
    // ChEMBL answers 404 (a wrong base URL); PubChem answers 503.
    doctor({ CHEMBL_API_BASE_URL: `${pubchem.url}/nowhere`, PUBCHEM_API_BASE_URL: `${pubchem.url}/broken` }, ["--json", "--timeout-ms", "3000"]),
    // A setting the server would refuse, and a proxy URL it cannot use; upstreams offline.
    doctor({ CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "loud", HTTPS_PROXY: "socks5://127.0.0.1:1080" }, ["--json"]),
    // The text report.
    doctor({ CHEMBL_API_BASE_URL: `http://127.0.0.1:${closedPort}/chembl/api/data`, CHEMATIC_OFFLINE: "0", PUBCHEM_API_BASE_URL: pubchem.url }),
  ]);

  for (const run of [refused, erroring, badSetting]) {
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const r = report(run);
    assert.equal(r.ok, false);
    for (const c of r.checks) if (c.status === "fail") assert.ok(c.fix && c.fix.length > 20, `${c.name} says what to fix`);
  }

  const a = new Map(report(refused).checks.map((c) => [c.name, c]));
  assert.deepEqual([a.get("ChEMBL")!.status, a.get("PubChem")!.status], ["fail", "fail"]);
  assert.match(a.get("ChEMBL")!.detail, /cannot be reached: ECONNREFUSED/);
  assert.match(a.get("ChEMBL")!.fix!, /HTTPS_PROXY/);
  assert.match(a.get("PubChem")!.detail, /did not answer within 0\.5 s/);
  assert.match(a.get("PubChem")!.fix!, /--timeout-ms/);
  for (const name of LOCAL_CHECKS) assert.equal(a.get(name)!.status, "ok", name);

  const b = new Map(report(erroring).checks.map((c) => [c.name, c]));
  assert.match(b.get("ChEMBL")!.detail, /answered HTTP 404/);
  assert.match(b.get("ChEMBL")!.fix!, /CHEMBL_API_BASE_URL does not point at the ChEMBL API root/);
  assert.match(b.get("PubChem")!.detail, /HTTP 503/);
  assert.match(b.get("PubChem")!.fix!, /retry later/);

  const c = new Map(report(badSetting).checks.map((x) => [x.name, x]));
  assert.equal(c.get("configuration")!.status, "fail");
  assert.match(c.get("configuration")!.detail, /CHEMATIC_LOG_LEVEL must be one of/);
  assert.match(c.get("configuration")!.fix!, /Correct or unset CHEMATIC_LOG_LEVEL/);
  assert.equal(c.get("proxy")!.status, "fail");
  assert.match(c.get("proxy")!.detail, /HTTPS_PROXY must be an http:\/\/ proxy URL/);
  assert.doesNotMatch(JSON.stringify(report(badSetting)), /1080/, "the proxy's value is never printed");
  assert.deepEqual([c.get("ChEMBL")!.status, c.get("PubChem")!.status], ["skip", "skip"]);

  // The text report puts the fix under each failure.
  assert.equal(text.code, 1);
  assert.match(text.stdout, /\[FAIL\] ChEMBL .*ECONNREFUSED\n\s+fix: Check the machine's network/);
  assert.match(text.stdout, /1 of 13 checks failed\./);
});

test("CHEMATIC_OFFLINE=1 skips ChEMBL and PubChem without contacting them", async () => {
  const before = chembl.requests.length + pubchem.requests.length;
  const run = await doctor({ CHEMATIC_OFFLINE: "1", CHEMBL_API_BASE_URL: chembl.baseUrl, PUBCHEM_API_BASE_URL: pubchem.url }, ["--json"]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const s = statuses(report(run));
  assert.deepEqual([s.ChEMBL, s.PubChem], ["skip", "skip"]);
  assert.equal(chembl.requests.length + pubchem.requests.length, before);
});

test("bad doctor options are usage errors (exit 2)", async () => {
  const cases = [["--bogus"], ["--timeout-ms", "5"], ["--timeout-ms"]];
  const runs = await Promise.all(cases.map((args) => doctor({}, args)));
  for (const [i, run] of runs.entries()) {
    assert.equal(run.code, 2, cases[i]!.join(" "));
    assert.equal(run.stdout, "");
  }
});

test("nodeSupported: require(esm) lines of Node.js", () => {
  assert.deepEqual(["v20.18.3", "v20.19.0", "v21.7.0", "v22.11.0", "v22.12.0", "v23.0.0", "v24.1.0", "v18.20.0"].map(nodeSupported), [
    false,
    true,
    false,
    false,
    true,
    true,
    true,
    false,
  ]);
});

test("with CHEMBL_SQLITE, doctor reports the dump: path, release, size, the lookup index and the structure index (its size and count)", async (t) => {
  const { buildDump, loadDriver } = await import("../fixtures/chembl/dump.js");
  const Driver = loadDriver();
  if (!Driver) return t.skip("the optional SQLite driver better-sqlite3 is not installed");
  const dir = mkdtempSync(join(tmpdir(), "doctor-dump-"));
  try {
    const path = join(dir, "chembl_36.db");
    buildDump(path, Driver);
    const { buildStructureIndex } = await import("../../src/domain/chembl/structures/build.js");
    const built = await buildStructureIndex({ dump: path, release: "ChEMBL_36", cacheDir: join(dir, "cache"), workers: 1 });
    const [good, bad] = await Promise.all([
      doctor({ CHEMATIC_OFFLINE: "1", CHEMBL_SQLITE: path }, ["--json"]),
      doctor({ CHEMATIC_OFFLINE: "1", CHEMBL_SQLITE: join(dir, "missing.db") }, ["--json"]),
    ]);
    const dump = report(good).checks.find((c) => c.name === "ChEMBL dump");
    assert.equal(dump?.status, "ok", good.stdout);
    assert.match(dump.detail, new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: ChEMBL_36 \\(2025-07-28\\), [\\d.]+ (MB|bytes|GB)`));
    assert.match(dump.detail, /lookup index: .*chembl_36\.db\.chematic-index\.sqlite/);
    assert.match(
      dump.detail,
      new RegExp(`structure index: ${built.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(${built.count} structures, [\\d.]+ (MB|bytes), built `),
    );
    assert.equal(good.code, 0, good.stdout + good.stderr);
    const missing = report(bad).checks.find((c) => c.name === "ChEMBL dump");
    assert.equal(missing?.status, "fail");
    assert.match(missing.detail, /no file at CHEMBL_SQLITE/);
    assert.match(missing.fix ?? "", /CHEMBL_SQLITE/);
    assert.equal(bad.code, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

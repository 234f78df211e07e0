/**
 * The server itself with CHEMBL_SQLITE (issue 18, item 1): a stdio session under CHEMATIC_OFFLINE=1 answers
 * every ChEMBL tool and a chembl:// resource from a dump built in the official schema (no network at all:
 * CHEMBL_API_BASE_URL points at a closed port), the answers naming the dump and its release; the tools'
 * exact-structure search computes the InChIKey locally. `chematic-mcp chembl index` builds the structure
 * index first (a child process, as a user runs it), so similarity and substructure answer offline through
 * the server's chemistry pool. Skips when the optional driver is not installed.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_PATH, MODERN_META, ServerProcess, type Message } from "../helpers/server-process.js";
import { buildDump, loadDriver } from "../fixtures/chembl/dump.js";
import { addStructures, structureSet } from "../fixtures/chembl/structures.js";
import { ASPIRIN_SMILES } from "../fixtures/chembl/world.js";

const Driver = loadDriver();
const skip = Driver === null ? "the optional SQLite driver better-sqlite3 is not installed" : false;

describe("stdio server with CHEMBL_SQLITE and CHEMATIC_OFFLINE=1", { skip }, () => {
  let dir: string;
  let path: string;
  let s: ServerProcess;
  let index: { code: number | null; stderr: string };
  const ENV = { CHEMATIC_OFFLINE: "1", CHEMBL_API_BASE_URL: "http://127.0.0.1:9/chembl/api/data", XDG_CACHE_HOME: "" };
  const cli = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [CLI_PATH, ...args], { env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "chembl-e2e-"));
    path = join(dir, "chembl_36.db");
    buildDump(path, Driver!);
    addStructures(path, Driver!, structureSet());
    index = await cli(["chembl", "index", "--sqlite", path], { ...ENV, XDG_CACHE_HOME: join(dir, "cache") });
    s = new ServerProcess({ ...ENV, CHEMBL_SQLITE: path, XDG_CACHE_HOME: join(dir, "cache") });
  });
  after(async () => {
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const CALLS: Array<[string, Record<string, unknown>, (v: Record<string, unknown>) => void]> = [
    [
      "chembl_search_molecules",
      { query: "aspirin" },
      (v) => assert.equal((v.molecules as Array<{ molecule_chembl_id: string }>)[0]!.molecule_chembl_id, "CHEMBL25"),
    ],
    [
      "chembl_search_molecules",
      { smiles: ASPIRIN_SMILES },
      (v) => assert.equal((v.molecules as Array<{ molecule_chembl_id: string }>)[0]!.molecule_chembl_id, "CHEMBL25"),
    ],
    ["chembl_search_targets", { gene_symbol: "EGFR" }, (v) => assert.ok((v.targets as unknown[]).length >= 2)],
    ["chembl_get_bioactivities", { target_chembl_id: "CHEMBL203", limit: 3 }, (v) => assert.equal(v.returned, 3)],
    ["chembl_get_drug_info", { molecule_chembl_id: "CHEMBL419213" }, (v) => assert.ok(JSON.stringify(v).includes("Angiotensin-converting enzyme inhibitor"))],
    ["chembl_get_assay", { assay_chembl_ids: ["CHEMBL872939"] }, (v) => assert.equal((v.assays as unknown[]).length, 1)],
    ["chembl_get_documents", { document_chembl_ids: ["CHEMBL1137930"] }, (v) => assert.equal((v.documents as unknown[]).length, 1)],
  ];

  test("every ChEMBL tool answers from the dump, naming it and its release", async () => {
    let id = 1;
    for (const [tool, args, check] of CALLS) {
      const r = await s.modernCall(id++, tool, args, {}, 60_000);
      const result = r.result!;
      assert.equal(result.isError, undefined, `${tool}: ${JSON.stringify(result).slice(0, 400)}`);
      const value = result.structuredContent as Record<string, unknown>;
      check(value);
      const source = value.source as Record<string, unknown>;
      assert.equal(source.served_from, "chembl_36.db", tool);
      assert.equal(source.release, "ChEMBL_36", tool);
    }
  });

  test("chematic-mcp chembl index builds the structure index beside the dump, saying what it did", () => {
    assert.equal(index.code, 0, index.stderr);
    assert.match(index.stderr, /building the structure index \(ECFP4 and pattern fingerprints\) of \d+ structures/);
    assert.match(index.stderr, /100\.0 %/);
    assert.match(index.stderr, new RegExp(`structure index ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.chematic-structures: \\d+ structures`));
    assert.match(index.stderr, /3 structures left out .*\n {2}CHEMBL\d+: /);
  });

  test("offline similarity and substructure answer from the structure index through the chemistry pool", async () => {
    const sim = await s.modernCall(200, "chembl_search_molecules", { smiles: ASPIRIN_SMILES, search_type: "similarity", similarity_threshold: 40 }, {}, 60_000);
    assert.equal(sim.result!.isError, undefined, JSON.stringify(sim.result).slice(0, 400));
    const simValue = sim.result!.structuredContent as { molecules: Array<{ molecule_chembl_id: string; similarity: number }>; source: Record<string, unknown> };
    assert.equal(simValue.molecules[0]!.molecule_chembl_id, "CHEMBL25");
    assert.equal(simValue.molecules[0]!.similarity, 100);
    assert.ok(simValue.molecules.length > 3);
    assert.equal(simValue.source.served_from, "chembl_36.db");
    const sub = await s.modernCall(201, "chembl_search_molecules", { smiles: "c1ccccc1C(=O)O", search_type: "substructure", limit: 5 }, {}, 60_000);
    assert.equal(sub.result!.isError, undefined, JSON.stringify(sub.result).slice(0, 400));
    const subValue = sub.result!.structuredContent as { molecules: unknown[]; total_count: number; nextCursor: string };
    assert.equal(subValue.molecules.length, 5);
    assert.ok(subValue.total_count > 5);
    assert.equal(typeof subValue.nextCursor, "string");
  });

  test("a chembl:// resource reads from the dump", async () => {
    const r = await s.request(100, "resources/read", { _meta: MODERN_META, uri: "chembl://molecule/CHEMBL25" }, 30_000);
    const text = (r.result as { contents: Array<{ text: string }> }).contents[0]!.text;
    assert.equal((JSON.parse(text) as { molecule_chembl_id: string }).molecule_chembl_id, "CHEMBL25");
  });
});

/**
 * Item 5's last sentence: a dump query never stalls the protocol. A target search whose name filter is slow
 * on purpose (SQLite's LIKE tries a 200-character pattern at every position of 300 names of 100,000
 * characters: seconds of CPU in the dump's worker thread, however fast the machine) runs while ping,
 * tools/list and a chemistry tool answer; past CHEMBL_REQUEST_TIMEOUT_MS it answers a typed error, and the
 * next ChEMBL call is answered by the worker that replaced the stuck one.
 */
describe("a slow dump query does not stall the protocol", { skip }, () => {
  let dir: string;
  let s: ServerProcess;
  const TIMEOUT_MS = 3_000;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "chembl-e2e-slow-"));
    const path = join(dir, "chembl_36.db");
    buildDump(path, Driver!);
    const db = new Driver!(path);
    db.exec(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) " +
        "INSERT INTO target_dictionary (tid, target_type, pref_name, tax_id, organism, chembl_id, species_group_flag) " +
        "SELECT 100000 + i, 'SINGLE PROTEIN', replace(hex(zeroblob(50000)), '0', 'a'), 9606, 'Homo sapiens', 'CHEMBL' || (900000 + i), 0 FROM n",
    );
    db.close();
    s = new ServerProcess({
      CHEMATIC_OFFLINE: "1",
      CHEMBL_SQLITE: path,
      CHEMBL_API_BASE_URL: "http://127.0.0.1:9/chembl/api/data",
      CHEMBL_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
    });
  });
  after(async () => {
    s?.kill();
    await s?.exited;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("ping, tools/list and a chemistry tool answer while it runs; past its timeout it answers a typed error and the next call works", async () => {
    const init = await s.request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } });
    assert.ok(init.result);
    s.send({ jsonrpc: "2.0", method: "notifications/initialized", params: {} });
    const call = (id: number, name: string, args: Record<string, unknown>) => s.request(id, "tools/call", { name, arguments: args }, 60_000);
    // The dump opened (its lookup sidecar built) and a chemistry worker ready, before the slow query.
    assert.equal((await call(2, "chembl_search_molecules", { query: "aspirin" })).result!.isError, undefined);
    assert.equal((await call(3, "canonical_smiles", { smiles: "OCC" })).result!.isError, undefined);

    const started = performance.now();
    const slow = call(10, "chembl_search_targets", { query: `${"a".repeat(199)}b` });
    let slowAnswered = false;
    void slow.then(() => (slowAnswered = true));
    const prompt: Array<[string, number]> = [];
    const timed = async (what: string, reply: Promise<Message>) => {
      const t = performance.now();
      const m = await reply;
      assert.equal(m.error, undefined, `${what}: ${JSON.stringify(m.error)}`);
      assert.equal(slowAnswered, false, `${what} was answered while the slow query still ran`);
      prompt.push([what, performance.now() - t]);
    };
    await timed("ping", s.request(11, "ping", {}, 10_000));
    await timed("tools/list", s.request(12, "tools/list", {}, 10_000));
    await timed("canonical_smiles", call(13, "canonical_smiles", { smiles: "c1ccccc1O" }));
    // Generous: each is milliseconds on an idle main thread; the slow query alone holds the dump's worker for seconds.
    for (const [what, ms] of prompt) assert.ok(ms < TIMEOUT_MS, `${what} took ${ms.toFixed(0)} ms while the dump's worker was busy`);

    const answer = (await slow).result!;
    const elapsed = performance.now() - started;
    assert.equal(answer.isError, true, JSON.stringify(answer).slice(0, 400));
    const { error } = JSON.parse((answer.content as Array<{ text: string }>)[0]!.text) as { error: { code: string; details: { reason: string } } };
    assert.equal(error.code, "UPSTREAM_UNAVAILABLE");
    assert.equal(error.details.reason, "timeout");
    assert.ok(elapsed >= TIMEOUT_MS - 100 && elapsed < TIMEOUT_MS + 20_000, `the slow query answered after ${elapsed.toFixed(0)} ms`);

    // The stuck worker was replaced: the next ChEMBL call is answered from the dump.
    const next = (await call(20, "chembl_search_molecules", { query: "aspirin" })).result!;
    assert.equal(next.isError, undefined, JSON.stringify(next).slice(0, 400));
    assert.equal((next.structuredContent as { molecules: Array<{ molecule_chembl_id: string }> }).molecules[0]!.molecule_chembl_id, "CHEMBL25");
  });
});

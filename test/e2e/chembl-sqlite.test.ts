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
import { CLI_PATH, MODERN_META, ServerProcess } from "../helpers/server-process.js";
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

/**
 * The server itself with CHEMBL_SQLITE (issue 18, item 1): a stdio session under CHEMATIC_OFFLINE=1 answers
 * every ChEMBL tool and a chembl:// resource from a dump built in the official schema (no network at all:
 * CHEMBL_API_BASE_URL points at a closed port), the answers naming the dump and its release; the tools'
 * exact-structure search computes the InChIKey locally. Skips when the optional driver is not installed.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MODERN_META, ServerProcess } from "../helpers/server-process.js";
import { buildDump, loadDriver } from "../fixtures/chembl/dump.js";
import { ASPIRIN_SMILES } from "../fixtures/chembl/world.js";

const Driver = loadDriver();
const skip = Driver === null ? "the optional SQLite driver better-sqlite3 is not installed" : false;

describe("stdio server with CHEMBL_SQLITE and CHEMATIC_OFFLINE=1", { skip }, () => {
  let dir: string;
  let s: ServerProcess;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "chembl-e2e-"));
    const path = join(dir, "chembl_36.db");
    buildDump(path, Driver!);
    s = new ServerProcess({ CHEMATIC_OFFLINE: "1", CHEMBL_SQLITE: path, CHEMBL_API_BASE_URL: "http://127.0.0.1:9/chembl/api/data" });
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

  test("a chembl:// resource reads from the dump", async () => {
    const r = await s.request(100, "resources/read", { _meta: MODERN_META, uri: "chembl://molecule/CHEMBL25" }, 30_000);
    const text = (r.result as { contents: Array<{ text: string }> }).contents[0]!.text;
    assert.equal((JSON.parse(text) as { molecule_chembl_id: string }).molecule_chembl_id, "CHEMBL25");
  });
});

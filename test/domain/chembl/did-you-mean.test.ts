/**
 * A misspelt name says what it might have meant (issue 34 item 2): with the offline dump, a name search that finds
 * nothing answers `did_you_mean`, the nearest names the dump holds by trigram similarity, and the notice names the
 * first of them. Without the text index, or for a query under 4 characters, nothing is suggested.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChemblService } from "../../../src/domain/chembl/service.js";
import type { SqlDb } from "../../../src/domain/chembl/sqlite/rest.js";
import { TEXT_INDEX_DDL, TEXT_INDEX_FILL, nearestNames } from "../../../src/domain/chembl/sqlite/text-search.js";
import { buildDump, loadDriver } from "../../fixtures/chembl/dump.js";
import { chemblTools, ok, testConfig } from "../../fixtures/chembl/harness.js";
import type { FakeChembl } from "../../fixtures/chembl/fake-server.js";

const Driver = loadDriver();
const skip = Driver === null ? "the optional SQLite driver better-sqlite3 is not installed (npm install better-sqlite3@12)" : false;

test("nearestNames ranks the names of the text index by trigram similarity", { skip }, () => {
  const opened = new Driver!(":memory:");
  const db = opened as unknown as SqlDb & { exec(sql: string): void };
  try {
    db.exec("CREATE TABLE names (key TEXT NOT NULL, molregno INTEGER NOT NULL, kind INTEGER NOT NULL)");
    const names = ["gefitinib", "gefitinib hydrochloride", "erlotinib", "imatinib", "aspirin", "acetylsalicylic acid", "iressa", "tarceva"];
    const insert = opened.prepare("INSERT INTO names VALUES (?, ?, ?)");
    names.forEach((name, i) => insert.run(name, i + 1, 0));
    db.exec(TEXT_INDEX_DDL);
    for (const sql of TEXT_INDEX_FILL) db.exec(sql);
    assert.deepEqual(nearestNames(db, "main", "gefitnib", true).slice(0, 1), ["gefitinib"]);
    assert.deepEqual(nearestNames(db, "main", "Gefitnib ", true).slice(0, 1), ["gefitinib"], "case and spaces as the search reads them");
    assert.deepEqual(nearestNames(db, "main", "aspirn", true).slice(0, 1), ["aspirin"]);
    assert.deepEqual(nearestNames(db, "main", "asp", true), [], "under 4 characters");
    assert.deepEqual(nearestNames(db, "main", "zzzzqqqq", true), [], "nothing near");
    assert.deepEqual(nearestNames(db, "main", "gefitnib", false), [], "no text index");
  } finally {
    opened.close();
  }
});

let dir: string;
let service: ChemblService;
before(() => {
  if (Driver === null) return;
  dir = mkdtempSync(join(tmpdir(), "chembl-dym-"));
  buildDump(join(dir, "chembl_36.db"), Driver);
  service = new ChemblService({ ...testConfig({ baseUrl: "http://127.0.0.1:9/unused" } as FakeChembl), offline: true, sqlitePath: join(dir, "chembl_36.db") });
});
after(async () => {
  await service?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("chembl_search_molecules on the dump answers did_you_mean for a misspelt name, and nothing extra for a match", { skip }, async () => {
  const tools = chemblTools(service);
  const misspelt = await ok(tools.searchMolecules, { query: "aspirn" });
  assert.equal(misspelt.value.returned, 0);
  assert.ok((misspelt.value.did_you_mean as string[]).includes("aspirin"), JSON.stringify(misspelt.value.did_you_mean));
  assert.match(String(misspelt.value.notice), /Did you mean aspirin/);
  const found = await ok(tools.searchMolecules, { query: "aspirin" });
  assert.equal(found.value.did_you_mean, undefined);
});

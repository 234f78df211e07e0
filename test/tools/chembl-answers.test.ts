/**
 * Issue 13, item 14, on the ChEMBL tools against the fake: a failed drug-info section is absent (its status
 * says failed), arguments that would be dropped or misread answer INVALID_ARGUMENTS saying what to send, and
 * DEADLINE_EXCEEDED on an upstream that does not answer says so instead of "narrow the query".
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { createChemblGetBioactivitiesTool } from "../../src/tools/chembl_get_bioactivities.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { ASPIRIN_SMILES } from "../fixtures/chembl/world.js";
import { chemblTools, fails, ok, serviceContext, testService } from "../fixtures/chembl/harness.js";

type Row = Record<string, unknown>;

let fake: FakeChembl;
let tools: ReturnType<typeof chemblTools>;
before(async () => (fake = await new FakeChembl("new").start()));
after(() => fake.stop());
beforeEach(() => {
  fake.reset();
  tools = chemblTools(testService(fake));
});

describe("chembl_get_drug_info: a failed section", () => {
  test("a failed section is absent with its status failed, not an empty list; the markdown says it was not read", async () => {
    fake.fault = { mode: "502", path: /^mechanism$/ };
    const { value, text } = await ok(tools.drugInfo, { molecule_chembl_id: "CHEMBL25" });
    assert.equal((value.mechanisms_status as Row).status, "failed");
    assert.ok(!("mechanisms" in value), "no mechanisms key: an empty list would read as 'no mechanisms'");
    assert.ok(Array.isArray(value.indications), "a section that was read stays");
    assert.match(text, /mechanisms absent: not read/);
  });
});

describe("arguments are never silently dropped or misread", () => {
  test("include_alternate_forms without molecule_chembl_id is INVALID_ARGUMENTS naming what to send", async () => {
    const e = await fails(tools.bioactivities, { target_chembl_id: "CHEMBL203", include_alternate_forms: true });
    assert.equal(e.code, "INVALID_ARGUMENTS");
    assert.equal(e.details.path, "/include_alternate_forms");
    assert.match(e.hint, /molecule_chembl_id/);
    assert.equal(fake.requests.length, 0, "nothing was asked of ChEMBL");
  });

  test("include_alternate_forms with a molecule still widens it to the family", async () => {
    const { value } = await ok(tools.bioactivities, { molecule_chembl_id: "CHEMBL25", include_alternate_forms: true });
    assert.equal((value.applied_filters as Row).include_alternate_forms, true);
  });

  test("query together with smiles is INVALID_ARGUMENTS, for a name search and for a structure search", async () => {
    for (const args of [
      { query: "aspirin", smiles: ASPIRIN_SMILES },
      { query: "aspirin", smiles: ASPIRIN_SMILES, search_type: "name" },
      { query: "aspirin", smiles: ASPIRIN_SMILES, search_type: "similarity" },
      { query: "CCO", smiles: ASPIRIN_SMILES, search_type: "exact" },
    ]) {
      const e = await fails(tools.searchMolecules, args);
      assert.equal(e.code, "INVALID_ARGUMENTS", JSON.stringify(args));
      assert.match(e.hint, /alone/, JSON.stringify(args));
    }
    assert.equal(fake.requests.length, 0);
  });

  test("a name given to search_type similarity is INVALID_ARGUMENTS saying to send smiles", async () => {
    for (const query of ["aspirin", "CHEMBL25", "Gleevec"]) {
      const e = await fails(tools.searchMolecules, { search_type: "similarity", query });
      assert.equal(e.code, "INVALID_ARGUMENTS", query);
      assert.equal(e.details.path, "/query");
      assert.match(e.hint, /smiles/);
    }
    assert.equal(fake.requests.length, 0);
  });

  test("a SMILES put in query for a structure search still works", async () => {
    const { value } = await ok(tools.searchMolecules, { search_type: "similarity", query: ASPIRIN_SMILES });
    assert.equal(value.smiles, ASPIRIN_SMILES);
  });
});

describe("DEADLINE_EXCEEDED says what ran out", () => {
  test("an upstream that does not answer: the message and hint say ChEMBL did not answer, not 'narrow the query'", async () => {
    fake.fault = { mode: "hang" };
    const slow = chemblTools(testService(fake, { requestTimeoutMs: 5_000, deadlineMs: 600 }));
    const e = await fails(slow.drugInfo, { molecule_chembl_id: "CHEMBL25" });
    assert.equal(e.code, "DEADLINE_EXCEEDED");
    assert.match(e.message, /did not answer/);
    assert.doesNotMatch(e.hint, /^narrow/i);
    assert.match(e.hint, /not answering/);
    assert.equal(e.details.waiting_for, "upstream");
  });

  test("a bioactivity page from a hanging upstream says the same (canvas off)", async () => {
    fake.fault = { mode: "hang" };
    const off = new CanvasManager({ enabled: false, dir: null, maxSpillRows: 100 });
    const bio = createChemblGetBioactivitiesTool(
      () => testService(fake, { requestTimeoutMs: 5_000, deadlineMs: 600 }),
      () => off,
    );
    const e = await fails(bio, { target_chembl_id: "CHEMBL203" }, serviceContext(20_000));
    assert.equal(e.code, "DEADLINE_EXCEEDED");
    assert.match(e.hint, /not answering/);
  });
});

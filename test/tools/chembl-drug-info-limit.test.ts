/**
 * chembl_get_drug_info's long lists take a limit: aspirin has 157 indications in ChEMBL (a 53 KB answer with no
 * limit). Each section answers at most `limit` records (default DRUG_INFO_DEFAULT_LIMIT), the indications the
 * furthest phase first so approved ones are kept, and its status says how many were read but left out, on both
 * surfaces. The limit is applied by the tool, so the web API and the offline dump answer alike.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { INDICATIONS, type Rec } from "../fixtures/chembl/world.js";
import { chemblTools, ok, testService } from "../fixtures/chembl/harness.js";
import { DRUG_INFO_DEFAULT_LIMIT } from "../../src/tools/chembl_get_drug_info.js";
import { MAX_ANSWER_BYTES } from "../../src/contract/limits.js";

const EXTRA = 156;
let fake: FakeChembl;
const added: Rec[] = [];

before(async () => {
  // Aspirin as ChEMBL holds it: 157 indications (the world's one, and 156 more at phases 1 to 4, approved last).
  for (let i = 0; i < EXTRA; i++) {
    const phase = i < 140 ? String((i % 3) + 1) + ".0" : "4.0";
    added.push({
      drugind_id: 90_000 + i,
      efo_id: `EFO:9${String(i).padStart(6, "0")}`,
      efo_term: `condition ${i}`,
      indication_refs: [{ ref_id: `NCT9${String(i).padStart(7, "0")}`, ref_type: "ClinicalTrials", ref_url: "https://clinicaltrials.gov/" }],
      max_phase_for_ind: phase,
      mesh_heading: `Condition ${i}`,
      mesh_id: `D9${String(i).padStart(5, "0")}`,
      molecule_chembl_id: "CHEMBL25",
      parent_molecule_chembl_id: "CHEMBL25",
    });
  }
  INDICATIONS.push(...added);
  fake = await new FakeChembl("new").start();
});

after(async () => {
  INDICATIONS.splice(INDICATIONS.length - added.length, added.length);
  await fake.stop();
});

type Status = { status: string; total_count: number | null; omitted?: number };

test("by default each section answers at most the default limit, approved indications first, and says how many it left out", async () => {
  const tools = chemblTools(testService(fake));
  const { value, text } = await ok(tools.drugInfo, { molecule_chembl_id: "CHEMBL25" });
  const indications = value.indications as Array<{ max_phase_for_ind?: number }>;
  assert.equal(indications.length, DRUG_INFO_DEFAULT_LIMIT);
  const status = value.indications_status as Status;
  assert.equal(status.omitted, EXTRA + 1 - DRUG_INFO_DEFAULT_LIMIT);
  // 17 approved (the world's Pain and 16 added): all kept, before any other phase.
  const phases = indications.map((i) => i.max_phase_for_ind);
  assert.deepEqual(phases.slice(0, 17), Array(17).fill(4));
  assert.ok(phases.slice(17).every((p) => p === 3));
  assert.match(text, new RegExp(`${EXTRA + 1 - DRUG_INFO_DEFAULT_LIMIT} more read but not shown: ask with a higher limit`));
  assert.equal((value.mechanisms_status as Status).omitted, undefined, "a section within the limit says nothing");
  assert.ok(Buffer.byteLength(JSON.stringify(value)) < MAX_ANSWER_BYTES && Buffer.byteLength(text) < MAX_ANSWER_BYTES);
});

test("a higher limit answers every record, and the answer says nothing was left out", async () => {
  const tools = chemblTools(testService(fake));
  const { value, text } = await ok(tools.drugInfo, { molecule_chembl_id: "CHEMBL25", limit: 500 });
  assert.equal((value.indications as unknown[]).length, EXTRA + 1);
  assert.equal((value.indications_status as Status).omitted, undefined);
  assert.doesNotMatch(text, /not shown/);
  const one = await ok(tools.drugInfo, { molecule_chembl_id: "CHEMBL25", limit: 1 });
  assert.equal((one.value.indications as Array<{ max_phase_for_ind?: number }>)[0]!.max_phase_for_ind, 4);
});

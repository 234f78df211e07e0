/**
 * The rules tools/list no longer states (the host's form of an input schema is a plain object: host-schema.ts)
 * are still enforced before any work, as INVALID_ARGUMENTS naming the arguments and what to send instead: one
 * of smiles, smiles_list or sdf; fields only with a list; a tool's own forms (depict's canvas_id with sql,
 * tanimoto's pairs); an argument that needs another.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../../src/app.js";

const app = createApp({ ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" }, {}, { lazyWorkers: true });
after(() => app.close());

const CANVAS = "cv_local_aaaaaaaaaaaaaaaaaaaaaaaaaaaa";

async function refusal(tool: string, args: Record<string, unknown>): Promise<{ message: string; path: unknown; hint: string }> {
  const outcome = await app.server.runTool(tool, args, { signal: new AbortController().signal });
  assert.ok(!outcome.ok, `${tool} ${JSON.stringify(args)} was run`);
  assert.equal(outcome.error.code, "INVALID_ARGUMENTS");
  return { message: outcome.error.message, path: outcome.error.details?.path, hint: outcome.error.hint ?? "" };
}

test("no input form: the message lists the forms the tool takes", async () => {
  assert.match((await refusal("calc_properties", {})).message, /needs one of smiles, smiles_list or sdf$/);
  assert.match((await refusal("depict", {})).message, /needs one of smiles, smiles_list, canvas_id with sql or canvas_id with table$/);
  assert.match((await refusal("find_mcs", {})).message, /needs one of smiles_list, sdf or canvas_id$/);
  assert.match((await refusal("canvas_import", {})).message, /needs one of smiles_list, sdf, csv or path$/);
  assert.match((await refusal("cluster_molecules", {})).message, /needs one of smiles_list or canvas_id$/);
});

test("two input forms: the message names the second and says to send only one", async () => {
  const both = await refusal("calc_properties", { smiles: "CCO", smiles_list: ["CCO"] });
  assert.match(both.message, /smiles_list is a second input form: send only one of smiles, smiles_list or sdf \(this call sent smiles, smiles_list\)/);
  assert.equal(both.path, "/smiles_list");
  assert.match((await refusal("canvas_import", { smiles_list: ["C"], csv: "smiles\nC" })).message, /csv is a second input form/);
  assert.match((await refusal("find_mcs", { smiles_list: ["C", "CC"], sdf: "x" })).message, /send only one of smiles_list, sdf or canvas_id/);
});

test("half a form, and an argument that needs another: the missing one is named", async () => {
  const half = await refusal("depict", { canvas_id: CANVAS });
  assert.match(half.message, /\/sql is required with canvas_id/);
  assert.equal(half.path, "/sql");
  assert.match((await refusal("cluster_molecules", { canvas_id: CANVAS })).message, /\/table is required with canvas_id/);
  assert.match((await refusal("tanimoto", { smiles1: "CCO" })).message, /\/smiles2 is required with smiles1/);
  assert.match((await refusal("tanimoto", { smiles: "CCO" })).message, /\/smiles_list is required with smiles/);
});

test("fields without a list is refused, saying it goes with a list", async () => {
  const r = await refusal("calc_properties", { smiles: "CCO", fields: ["mw"] });
  assert.match(r.message, /\/fields goes only with a list: send it with smiles_list or sdf, or leave it out/);
  assert.match(r.hint, /details\.path/);
});

test("a value the host's schema leaves to the server (an integer outside its allowed set) is refused with the allowed values", async () => {
  assert.match((await refusal("ecfp4", { smiles: "C", n_bits: 100 })).message, /n_bits must be one of \[64,128,256,512,1024,2048,4096,8192,16384\]/);
});

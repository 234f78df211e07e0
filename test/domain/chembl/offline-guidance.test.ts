/**
 * Offline guidance that leads somewhere (issue 34 item 2): ChEMBL unreachable names its cause (ENOTFOUND: no DNS, no
 * network) instead of only "retry later", and both it and the OFFLINE refusal name CHEMBL_SQLITE, the offline dump;
 * with a dump configured, name_to_smiles offline points to chembl_search_molecules.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { FetchNetworkError } from "../../../src/domain/chembl/http.js";
import { networkFailure, offline } from "../../../src/domain/chembl/errors.js";
import { ToolError } from "../../../src/domain/errors.js";
import { createNameToSmilesTool } from "../../../src/tools/name_to_smiles.js";

test("ChEMBL unreachable says why and names the offline dump", () => {
  const e = networkFailure({ what: "molecule CHEMBL25" }, false, 10_000, new FetchNetworkError("network failure", "ENOTFOUND"));
  assert.equal(e.code, "UPSTREAM_UNAVAILABLE");
  assert.match(e.message, /ENOTFOUND: the host name did not resolve/);
  assert.equal(e.details.cause_code, "ENOTFOUND");
  assert.match(e.hint, /CHEMBL_SQLITE/);
  assert.match(e.hint, /chematic-mcp chembl download/);
  const refused = networkFailure({ what: "activities" }, false, 10_000, new FetchNetworkError("network failure", "ECONNREFUSED"));
  assert.match(refused.message, /ECONNREFUSED: the connection was refused/);
  assert.match(offline().hint, /CHEMBL_SQLITE/);
});

test("name_to_smiles offline points to chembl_search_molecules when the dump is configured", async () => {
  const call = (env: NodeJS.ProcessEnv) =>
    createNameToSmilesTool({ env: () => env }).run({ name: "gefitinib" }, { signal: new AbortController().signal, deadline: Date.now() + 10_000 } as never);
  await assert.rejects(call({ CHEMATIC_OFFLINE: "1", CHEMBL_SQLITE: "/data/chembl_35.db" }), (e: unknown) => {
    assert.ok(e instanceof ToolError && e.code === "OFFLINE");
    assert.match(e.hint, /chembl_search_molecules/);
    return true;
  });
  await assert.rejects(
    call({ CHEMATIC_OFFLINE: "1" }),
    (e: unknown) => e instanceof ToolError && e.code === "OFFLINE" && !/chembl_search_molecules/.test(e.hint),
  );
});

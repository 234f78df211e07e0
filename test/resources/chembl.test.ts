/** The chembl:// resource provider against the local fake, alone and behind the server's resource registry. */
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../src/domain/errors.js";
import { RpcError } from "../../src/protocol/jsonrpc.js";
import { ResourceRegistry } from "../../src/server/resources.js";
import { chemblResourceProvider, parseChemblUri } from "../../src/resources/chembl.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { CANARY } from "../fixtures/chembl/world.js";
import { serviceContext, testService } from "../fixtures/chembl/harness.js";

let fake: FakeChembl;
before(async () => (fake = await new FakeChembl("new").start()));
after(() => fake.stop());
beforeEach(() => fake.reset());

test("templates and listed examples", () => {
  const p = chemblResourceProvider(testService(fake));
  assert.equal(p.scheme, "chembl");
  assert.deepEqual(
    p.templates().map((t) => t.uriTemplate),
    ["chembl://molecule/{chembl_id}", "chembl://target/{chembl_id}"],
  );
  for (const t of p.templates()) assert.equal(t.mimeType, "application/json");
  assert.ok(p.list().every((e) => parseChemblUri(e.uri) !== null));
  assert.ok(p.readTtlMs > 0 && p.budgetMs <= 55_000);
});

test("URIs: any case, percent-encoding and whitespace around the ID; anything else is not ours", () => {
  assert.deepEqual(parseChemblUri("chembl://molecule/chembl25"), { kind: "molecule", id: "CHEMBL25" });
  assert.deepEqual(parseChemblUri("CHEMBL://Target/%20CHEMBL203%20"), { kind: "target", id: "CHEMBL203" });
  for (const bad of ["chembl://molecule/", "chembl://molecule/aspirin", "chembl://assay/CHEMBL1", "chembl://molecule/CHEMBL25/x", "chembl://molecule/%E0%A4%A"])
    assert.equal(parseChemblUri(bad), null, bad);
});

test("a molecule reads as its search row with release and attribution; a target as its search row", async () => {
  const p = chemblResourceProvider(testService(fake));
  const [m] = await p.read("chembl://molecule/chembl419213", serviceContext());
  assert.equal(m!.uri, "chembl://molecule/chembl419213");
  assert.equal(m!.mimeType, "application/json");
  const mol = JSON.parse((m as { text: string }).text) as Record<string, unknown>;
  assert.equal(mol.molecule_chembl_id, "CHEMBL419213");
  assert.equal(mol.parent_chembl_id, "CHEMBL1237");
  assert.equal(mol.max_phase, 4);
  assert.equal((mol.source as Record<string, unknown>).release, "ChEMBL_36");
  const [t] = await p.read("chembl://target/CHEMBL203", serviceContext());
  const target = JSON.parse((t as { text: string }).text) as Record<string, unknown>;
  assert.equal(target.target_type, "SINGLE PROTEIN");
  assert.equal(target.component_count, 1);
});

test("a miss is NOT_FOUND, which the registry answers as -32602 Resource not found", async () => {
  const p = chemblResourceProvider(testService(fake));
  await assert.rejects(p.read("chembl://molecule/CHEMBL12345678", serviceContext()), (e: unknown) => e instanceof ToolError && e.code === "NOT_FOUND");
  const registry = new ResourceRegistry([p]);
  const { provider, uri } = registry.resolve({ uri: "chembl://target/CHEMBL99999999" });
  await assert.rejects(registry.read(provider, uri, serviceContext()), (e: unknown) => e instanceof RpcError && e.code === -32602);
  await assert.rejects(registry.read(provider, "chembl://compound/CHEMBL25", serviceContext()), (e: unknown) => e instanceof RpcError && e.code === -32602);
});

test("upstream faults stay sanitised on reads too", async () => {
  fake.fault = { mode: "502" };
  const p = chemblResourceProvider(testService(fake, { deadlineMs: 1_000 }));
  const e = await p.read("chembl://molecule/CHEMBL25", serviceContext()).then(
    () => assert.fail("should fail"),
    (x: unknown) => x as ToolError,
  );
  assert.equal(e.code, "UPSTREAM_UNAVAILABLE");
  assert.ok(!JSON.stringify(e.toPayload()).includes(CANARY) && !e.message.includes("Proxy"));
});

test("OFFLINE reads answer OFFLINE", async () => {
  const p = chemblResourceProvider(testService(fake, { offline: true }));
  await assert.rejects(p.read("chembl://molecule/CHEMBL25", serviceContext()), (e: unknown) => e instanceof ToolError && e.code === "OFFLINE");
  assert.equal(fake.requests.length, 0);
});

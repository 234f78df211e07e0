/**
 * name_to_smiles against a local fake PubChem (127.0.0.1, random port) with PubChem's answer shapes: the
 * PropertyTable (new SMILES key and the pre-2025 IsomericSMILES key), the 404 Fault JSON, a 503 HTML page,
 * 504, 400, a slow answer, malformed JSON; the POST form for names with "/"; CHEMATIC_OFFLINE; and the same
 * through the CLI (PUBCHEM_API_BASE_URL pointing at the fake).
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { runCli } from "../helpers/server-process.js";
import { ToolError } from "../../src/domain/errors.js";
import { createNameToSmilesTool, nameToSmilesTool } from "../../src/tools/name_to_smiles.js";
import { createAjv } from "../../src/server/registry.js";
import { startOrigin, type FakeServer, type Handler } from "../helpers/fake-http.js";

const FAULT_404 = { Fault: { Code: "PUGREST.NotFound", Message: "No CID found", Details: ["No CID found that matches the given name"] } };
const PREFIX = "/rest/pug/compound/name/";
const SUFFIX = "/property/SMILES,IsomericSMILES/JSON";

const json = (res: Parameters<Handler>[1], status: number, body: unknown) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

const fakePubChem: Handler = (req, res, body) => {
  const path = req.url ?? "";
  // PubChem's InChI lookup: POST compound/inchi with the form field inchi (its name lookup does not resolve InChI).
  if (req.method === "POST" && path === `/rest/pug/compound/inchi${SUFFIX}` && req.headers["content-type"] === "application/x-www-form-urlencoded") {
    const inchi = new URLSearchParams(body.toString("utf8")).get("inchi");
    if (inchi === "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3") json(res, 200, { PropertyTable: { Properties: [{ CID: 702, SMILES: "CCO" }] } });
    else json(res, 404, FAULT_404);
    return;
  }
  let name: string | undefined;
  if (req.method === "GET" && path.startsWith(PREFIX) && path.endsWith(SUFFIX)) name = decodeURIComponent(path.slice(PREFIX.length, -SUFFIX.length));
  else if (req.method === "POST" && path === `/rest/pug/compound/name${SUFFIX}` && req.headers["content-type"] === "application/x-www-form-urlencoded") {
    name = new URLSearchParams(body.toString("utf8")).get("name") ?? undefined;
  }
  if (name === undefined || name.includes("/") !== (req.method === "POST")) {
    json(res, 400, { Fault: { Code: "PUGREST.BadRequest", Message: "Unexpected request" } });
    return;
  }
  switch (name) {
    case "aspirin":
      json(res, 200, { PropertyTable: { Properties: [{ CID: 2244, SMILES: "CC(=O)OC1=CC=CC=C1C(=O)O" }] } });
      return;
    case "acetylsalicylic acid":
    case "β-carotene ½ (test)":
      json(res, 200, { PropertyTable: { Properties: [{ CID: 7, SMILES: "C" }] } });
      return;
    case "old mirror":
      json(res, 200, { PropertyTable: { Properties: [{ CID: 5793, IsomericSMILES: "C([C@@H]1[C@H]([C@@H]([C@H](C(O1)O)O)O)O)O" }] } });
      return;
    case "glucose":
      json(res, 200, { PropertyTable: { Properties: [{ CID: 5793, SMILES: "C(C1C(C(C(C(O1)O)O)O)O)O" }, { CID: 107526 }, { CID: 79025, SMILES: "x" }] } });
      return;
    case "N,N'-bis(2-chloroethyl)-N/N-test":
      json(res, 200, { PropertyTable: { Properties: [{ CID: 42, SMILES: "ClCCNCCCl" }] } });
      return;
    case "busy":
      res.writeHead(503, { "content-type": "text/html" }).end("<html><body><h1>Service Unavailable</h1>PUGREST.ServerBusy secret-upstream-text</body></html>");
      return;
    case "gateway timeout":
      json(res, 504, { Fault: { Code: "PUGREST.Timeout", Message: "secret-upstream-text" } });
      return;
    case "bad request":
      json(res, 400, { Fault: { Code: "PUGREST.BadRequest", Message: "secret-upstream-text" } });
      return;
    case "server error":
      json(res, 500, { Fault: { Code: "PUGREST.ServerError", Message: "secret-upstream-text" } });
      return;
    case "malformed":
      res.writeHead(200, { "content-type": "application/json" }).end('{"PropertyTable": {secret-upstream-text');
      return;
    case "no table":
      json(res, 200, { Waiting: { ListKey: "123" } });
      return;
    case "no smiles":
      json(res, 200, { PropertyTable: { Properties: [{ CID: 1 }] } });
      return;
    case "slow":
      // A slow upstream on purpose: the 3 s answer is what the tool's timeout cuts short.
      setTimeout(() => {
        if (!res.destroyed) json(res, 200, { PropertyTable: { Properties: [{ CID: 1, SMILES: "C" }] } });
      }, 3000);
      return;
    default:
      json(res, 404, FAULT_404);
  }
};

let pubchem: FakeServer;
before(async () => {
  pubchem = await startOrigin(fakePubChem);
});
after(async () => {
  await pubchem.close();
});

const validOutput = createAjv().compile(nameToSmilesTool.outputSchema);
const ctx = () => ({ signal: new AbortController().signal, progress: () => {}, deadline: Date.now() + 15_000 });
const tool = (env: NodeJS.ProcessEnv = {}, timeoutMs = 500) =>
  createNameToSmilesTool({ timeoutMs, env: () => ({ PUBCHEM_API_BASE_URL: pubchem.url, ...env }) });

async function lookup(name: string, env: NodeJS.ProcessEnv = {}): Promise<Record<string, unknown>> {
  const out = await tool(env).run({ name }, ctx());
  assert.ok(validOutput(out), JSON.stringify(validOutput.errors));
  return out;
}

async function lookupError(name: string, env: NodeJS.ProcessEnv = {}): Promise<ToolError> {
  try {
    await tool(env).run({ name }, ctx());
  } catch (e) {
    assert.ok(e instanceof ToolError, String(e));
    assert.doesNotMatch(JSON.stringify({ m: e.message, d: e.details }), /secret-upstream-text|Service Unavailable|No CID found/, "no upstream text");
    return e;
  }
  assert.fail(`expected ${name} to fail`);
}

test("metadata: a service tool, open-world, 1..500 characters, its error codes", () => {
  assert.equal(nameToSmilesTool.kind, "service");
  assert.equal(nameToSmilesTool.annotations.openWorldHint, true);
  assert.equal(nameToSmilesTool.annotations.readOnlyHint, true);
  const name = (nameToSmilesTool.inputSchema.properties as Record<string, Record<string, number>>).name!;
  assert.equal(name.minLength, 1);
  assert.equal(name.maxLength, 500);
  assert.deepEqual([...nameToSmilesTool.errors].sort(), ["OFFLINE", "PUBCHEM_LOOKUP_FAILED"]);
  assert.ok(nameToSmilesTool.budgetMs > 10_000 && nameToSmilesTool.budgetMs <= 55_000);
});

test("a found name: SMILES (falling back to IsomericSMILES), cid, other_cids; names are percent-encoded or POSTed", async () => {
  assert.deepEqual(await lookup("  aspirin "), { name: "aspirin", smiles: "CC(=O)OC1=CC=CC=C1C(=O)O", source: "PubChem", cid: 2244 });
  assert.equal(pubchem.requests.at(-1)!.url, `${PREFIX}aspirin${SUFFIX}`);
  assert.equal((await lookup("old mirror")).smiles, "C([C@@H]1[C@H]([C@@H]([C@H](C(O1)O)O)O)O)O");
  assert.deepEqual((await lookup("glucose")).other_cids, [107526, 79025]);
  assert.equal((await lookup("acetylsalicylic acid")).cid, 7);
  assert.equal(pubchem.requests.at(-1)!.url, `${PREFIX}acetylsalicylic%20acid${SUFFIX}`);
  assert.equal((await lookup("β-carotene ½ (test)")).cid, 7);
  const slash = await lookup("N,N'-bis(2-chloroethyl)-N/N-test");
  assert.equal(slash.smiles, "ClCCNCCCl");
  assert.equal(pubchem.requests.at(-1)!.method, "POST");
});

test("an InChI goes to PubChem's InChI lookup (POST compound/inchi, form field inchi), not its name lookup", async () => {
  assert.deepEqual(await lookup("InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3"), {
    name: "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3",
    smiles: "CCO",
    source: "PubChem",
    cid: 702,
  });
  const request = pubchem.requests.at(-1)!;
  assert.equal(request.method, "POST");
  assert.equal(request.url, `/rest/pug/compound/inchi${SUFFIX}`);
  assert.equal(new URLSearchParams(request.body).get("inchi"), "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3");
  const unknown = await lookupError("InChI=1S/XX/unknown");
  assert.equal(unknown.code, "PUBCHEM_LOOKUP_FAILED");
  assert.equal(unknown.details.reason, "not_found");
  assert.match(unknown.message, /that InChI/);
});

test("PubChem's failures map to PUBCHEM_LOOKUP_FAILED with details.reason, without PubChem's text", async () => {
  const expectations: Array<[string, string, number | undefined]> = [
    ["no such compound xyz", "not_found", 404],
    ["bad request", "not_found", 400],
    ["no smiles", "not_found", undefined],
    ["busy", "unavailable", 503],
    ["server error", "unavailable", 500],
    ["malformed", "unavailable", undefined],
    ["no table", "unavailable", undefined],
    ["gateway timeout", "timeout", 504],
  ];
  for (const [name, reason, status] of expectations) {
    const e = await lookupError(name);
    assert.equal(e.code, "PUBCHEM_LOOKUP_FAILED", name);
    assert.equal(e.details.reason, reason, name);
    if (status !== undefined) assert.equal(e.details.upstream_status, status, name);
  }
  const t0 = Date.now();
  const slow = await lookupError("slow");
  assert.equal(slow.details.reason, "timeout");
  assert.ok(Date.now() - t0 < 2000, "the injected 500 ms timeout applies");
  const down = await createNameToSmilesTool({ timeoutMs: 1000, env: () => ({ PUBCHEM_API_BASE_URL: "http://127.0.0.1:9" }) })
    .run({ name: "aspirin" }, ctx())
    .catch((e: unknown) => e as ToolError);
  assert.equal((down as ToolError).details.reason, "unavailable");
  const badBase = await lookupError("aspirin", { PUBCHEM_API_BASE_URL: "ftp://mirror" });
  assert.equal(badBase.details.reason, "unavailable");
  const blank = await lookupError("   ");
  assert.equal(blank.code, "INVALID_ARGUMENTS");
});

test("CHEMATIC_OFFLINE=1 answers OFFLINE before any request, with a hint on enabling the network", async () => {
  const count = pubchem.requests.length;
  for (const value of ["1", "true", "yes", "on"]) {
    const e = await lookupError("aspirin", { CHEMATIC_OFFLINE: value });
    assert.equal(e.code, "OFFLINE");
    assert.match(e.hint, /CHEMATIC_OFFLINE/);
  }
  const invalid = await lookupError("aspirin", { CHEMATIC_OFFLINE: "maybe" });
  assert.equal(invalid.code, "OFFLINE", "a value that is not a boolean keeps the network off");
  assert.match(invalid.message, /CHEMATIC_OFFLINE/);
  assert.equal(pubchem.requests.length, count, "no request was made");
  assert.equal((await lookup("aspirin", { CHEMATIC_OFFLINE: "0" })).cid, 2244);
});

const cli = (args: string[], env: Record<string, string>) => runCli(args, { CHEMATIC_LOG_LEVEL: "error", ...env });

test("end to end through the CLI with PUBCHEM_API_BASE_URL pointing at the fake", async () => {
  const env = { PUBCHEM_API_BASE_URL: pubchem.url, CHEMATIC_OFFLINE: "0" };
  const ok = await cli(["call", "name_to_smiles", JSON.stringify({ name: "aspirin" })], env);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), { name: "aspirin", smiles: "CC(=O)OC1=CC=CC=C1C(=O)O", source: "PubChem", cid: 2244 });

  const missing = await cli(["call", "name_to_smiles", JSON.stringify({ name: "unobtainium" })], env);
  assert.equal(missing.code, 1);
  const error = JSON.parse(missing.stderr.slice(missing.stderr.indexOf("{"))) as { error: { code: string; details: { reason: string } } };
  assert.equal(error.error.code, "PUBCHEM_LOOKUP_FAILED");
  assert.equal(error.error.details.reason, "not_found");

  const offline = await cli(["call", "name_to_smiles", JSON.stringify({ name: "aspirin" })], { ...env, CHEMATIC_OFFLINE: "1" });
  assert.equal(offline.code, 1);
  assert.match(offline.stderr, /"code": "OFFLINE"/);

  const tooLong = await cli(["call", "name_to_smiles", JSON.stringify({ name: "x".repeat(501) })], env);
  assert.equal(tooLong.code, 1);
  assert.match(tooLong.stderr, /INVALID_ARGUMENTS/);
});

/**
 * Authentication through the CLI (`--auth oauth`, `--auth bearer`) with the official v2 client.
 *
 * OAuth: a local fake authorization server; the v2 client's own OAuth support, driven headless with its
 * client_credentials provider: the first request gets 401, the client reads resource_metadata from the
 * challenge, fetches our RFC 9728 metadata, then the issuer's RFC 8414 metadata, asks the token endpoint for
 * a token for our resource, and retries. Two clients (two subjects): a bioactivity spill on the fake ChEMBL
 * stages a canvas for one, the other gets CANVAS_NOT_FOUND for it; ChEMBL never sees an Authorization header;
 * CHEMATIC_OFFLINE does not block the issuer's metadata or keys; a bad setting stops start-up naming it.
 *
 * Bearer: tokens from CHEMATIC_AUTH_TOKENS_FILE (SHA-256 digests), the v2 client sending a static header;
 * a missing or wrong token gets 401 Bearer realm="chematic-mcp"; SIGHUP re-reads the file, and a broken file
 * on reload keeps the tokens in force; a broken file at start-up stops it naming the variable.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { MODERN_META, runCli } from "../helpers/server-process.js";
import { HttpServerProcess, httpSend, modernHeaders } from "../helpers/http.js";
import { Forwarder } from "../helpers/forward.js";
import { FakeAuthorizationServer } from "../fixtures/fake-oauth.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { tokenDigest } from "../../src/domain/auth/bearer.js";

type ToolResult = { structuredContent?: Record<string, unknown>; isError?: boolean };

function modernClient(name: string): Client {
  return new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
}

/** The CLI run to its exit (start-up failures). */
const startUp = (args: string[], env: Record<string, string>) => runCli(args, { CHEMATIC_LOG_LEVEL: "warn", ...env }, { timeoutMs: 30_000 });

describe("--auth oauth with the official client's OAuth (client_credentials, headless)", () => {
  let as: FakeAuthorizationServer;
  let chembl: FakeChembl;
  let server: HttpServerProcess;
  let front: Forwarder;
  let url: URL;

  before(async () => {
    as = await new FakeAuthorizationServer().start();
    chembl = await new FakeChembl("new").start();
    // The audience, the server's URL, is known before it listens: a forwarder's port (port 0) in front of it.
    front = await Forwarder.start();
    url = new URL(front.url("/mcp"));
    server = new HttpServerProcess(["--auth", "oauth"], {
      CHEMATIC_OAUTH_ISSUER: as.issuer,
      CHEMATIC_OAUTH_AUDIENCE: url.href,
      CHEMATIC_OAUTH_SCOPES: "chem",
      CHEMBL_API_BASE_URL: chembl.baseUrl,
      CHEMATIC_REPLICA_ID: "e2e",
      CHEMATIC_LOG_LEVEL: "info",
    });
    front.target = { port: await server.port() };
  });

  after(async () => {
    assert.equal(await server.stop(), 0);
    await chembl.stop();
    await as.stop();
    await front.close();
  });

  const connect = async (clientId: string, secret: string) => {
    const client = modernClient(clientId);
    const provider = new ClientCredentialsProvider({ clientId, clientSecret: secret, expectedIssuer: as.issuer });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    return client;
  };

  test("the client discovers the issuer from our 401, gets a token for our resource, and every canvas tool survives its x-mcp-header scan", async () => {
    const client = await connect("alice-agent", "alice-secret");
    try {
      const { tools } = await client.listTools();
      for (const name of [
        "chembl_dataframe_query",
        "chembl_dataframe_describe",
        "canvas_annotate",
        "canvas_import",
        "depict",
        "murcko_scaffold",
        "cluster_molecules",
      ]) {
        assert.ok(
          tools.some((t) => t.name === name),
          `${name} is kept by the client (a bad x-mcp-header would drop it)`,
        );
      }
      const request = as.tokenRequests.find((r) => r.clientId === "alice-agent");
      assert.equal(request?.resource, url.href, "the token was asked for this resource (RFC 8707)");
      assert.equal(request?.scope, "chem", "the scope our challenge and metadata name");
      assert.ok(as.metadataFetches.includes("/.well-known/oauth-authorization-server"));
      const r = (await client.callTool({ name: "canonical_smiles", arguments: { smiles: "OCC" } })) as ToolResult;
      assert.equal(r.structuredContent?.canonical, "CCO");
    } finally {
      await client.close();
    }
  });

  test("a spill stages a canvas for alice; bob gets CANVAS_NOT_FOUND for it; ChEMBL never sees a token", async () => {
    const alice = await connect("alice-agent", "alice-secret");
    const bob = await connect("bob-agent", "bob-secret");
    try {
      await alice.listTools();
      await bob.listTools();
      const spill = (await alice.callTool({ name: "chembl_get_bioactivities", arguments: { target_chembl_id: "CHEMBL235", limit: 10 } })) as ToolResult;
      const canvasId = spill.structuredContent?.canvas_id as string;
      assert.match(canvasId, /^cv_e2e_/);
      const sql = "SELECT count(*) AS n FROM bioactivities";
      const mine = (await alice.callTool({ name: "chembl_dataframe_query", arguments: { canvas_id: canvasId, sql } })) as ToolResult;
      assert.deepEqual(mine.structuredContent?.rows, [{ n: 57 }]);
      const theirs = (await bob.callTool({ name: "chembl_dataframe_query", arguments: { canvas_id: canvasId, sql } })) as ToolResult;
      assert.equal(theirs.isError, true);
      assert.equal((theirs.structuredContent?.error as { code: string }).code, "CANVAS_NOT_FOUND");
      assert.ok(chembl.requests.length > 0);
      for (const r of chembl.requests) assert.equal(r.headers.authorization, undefined, `${r.url} carried no Authorization header`);
      await server.waitForStderr(/authenticated call.*caller=alice-agent.*tool=chembl_get_bioactivities/);
      await server.waitForStderr(/authenticated call.*caller=bob-agent.*tool=chembl_dataframe_query/);
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  test("a client with no token, or an unknown client, is refused with the challenge", async () => {
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } };
    const reply = await httpSend(url.href, JSON.stringify(message), { headers: modernHeaders(message) });
    assert.equal(reply.status, 401);
    assert.equal(reply.headers["www-authenticate"], `Bearer scope="chem", resource_metadata="${url.origin}/.well-known/oauth-protected-resource/mcp"`);
    await assert.rejects(connect("mallory", "guess"));
  });
});

describe("--auth oauth start-up", () => {
  test("CHEMATIC_OFFLINE=1 does not block the issuer's metadata and keys", async () => {
    const as = await new FakeAuthorizationServer({ metadataAt: "openid" }).start();
    const front = await Forwarder.start();
    const url = new URL(front.url("/mcp"));
    const server = new HttpServerProcess(["--auth", "oauth"], {
      CHEMATIC_OAUTH_ISSUER: as.issuer,
      CHEMATIC_OAUTH_AUDIENCE: url.href,
      CHEMATIC_OFFLINE: "1",
    });
    try {
      front.target = { port: await server.port() };
      assert.deepEqual(as.metadataFetches, ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"], "RFC 8414 first, then OpenID");
      const token = await as.mint(url.href, { sub: "carol" });
      const message = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } };
      const reply = await httpSend(url.href, JSON.stringify(message), { headers: { ...modernHeaders(message), Authorization: `Bearer ${token}` } });
      assert.equal(reply.status, 200, reply.text);
      assert.ok(as.jwksFetches >= 1);
    } finally {
      assert.equal(await server.stop(), 0);
      await as.stop();
      await front.close();
    }
  });

  test("a missing or insecure setting stops start-up naming the variable (2); an unusable issuer names CHEMATIC_OAUTH_ISSUER (1)", async () => {
    const missing = await startUp(["--transport", "streamable-http", "--port", "0", "--auth", "oauth"], {
      CHEMATIC_OAUTH_AUDIENCE: "https://mcp.example.org/mcp",
    });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /CHEMATIC_OAUTH_ISSUER is required/);
    const insecure = await startUp(["--transport", "streamable-http", "--port", "0", "--auth", "oauth"], {
      CHEMATIC_OAUTH_ISSUER: "http://auth.example.org",
      CHEMATIC_OAUTH_AUDIENCE: "https://mcp.example.org/mcp",
    });
    assert.equal(insecure.code, 2);
    assert.match(insecure.stderr, /CHEMATIC_OAUTH_ISSUER must be an https URL/);
    const liar = await new FakeAuthorizationServer({ claimedIssuer: "https://someone-else.example" }).start();
    try {
      const wrong = await startUp(["--transport", "streamable-http", "--port", "0", "--auth", "oauth"], {
        CHEMATIC_OAUTH_ISSUER: liar.issuer,
        CHEMATIC_OAUTH_AUDIENCE: "http://127.0.0.1:1/mcp",
      });
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /CHEMATIC_OAUTH_ISSUER cannot be used: no usable metadata .*names the issuer "https:\/\/someone-else.example"/);
    } finally {
      await liar.stop();
    }
  });
});

describe("--auth bearer", () => {
  let dir: string;
  let file: string;
  let server: HttpServerProcess;
  let url: string;
  const TOKENS = {
    alice: "alice-0123456789abcdef0123456789abcdef",
    bob: "bob-0123456789abcdef0123456789abcdef",
    carol: "carol-0123456789abcdef0123456789abcd",
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "chematic-bearer-"));
    file = join(dir, "tokens");
    writeFileSync(file, `# the team\nalice sha256:${tokenDigest(TOKENS.alice)}\n\nbob sha256:${tokenDigest(TOKENS.bob).toUpperCase()}\n`);
    server = new HttpServerProcess(["--auth", "bearer"], { CHEMATIC_AUTH_TOKENS_FILE: file, CHEMATIC_LOG_LEVEL: "info", CHEMATIC_REPLICA_ID: "b1" });
    url = await server.url;
  });

  after(async () => {
    assert.equal(await server.stop(), 0);
    rmSync(dir, { recursive: true, force: true });
  });

  const tools = (token?: string) => {
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } };
    return httpSend(url, JSON.stringify(message), { headers: { ...modernHeaders(message), ...(token ? { Authorization: `Bearer ${token}` } : {}) } });
  };

  const waitFor = (pattern: RegExp) => server.waitForStderr(pattern);

  test("the official client with a listed token is served; a missing or wrong token gets 401 Bearer realm", async () => {
    const client = modernClient("bearer-client");
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKENS.alice}` } } }));
    try {
      const made = (await client.callTool({ name: "canvas_import", arguments: { smiles_list: ["CCO"] } })) as ToolResult;
      const canvasId = made.structuredContent?.canvas_id as string;
      assert.match(canvasId, /^cv_b1_/);
      const read = (await client.callTool({ name: "chembl_dataframe_describe", arguments: { canvas_id: canvasId } })) as ToolResult;
      assert.equal(read.isError, undefined);
      // bob, another token: alice's canvas is unknown to him.
      const message = {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { _meta: MODERN_META, name: "chembl_dataframe_describe", arguments: { canvas_id: canvasId } },
      };
      const byBob = await httpSend(url, JSON.stringify(message), { headers: { ...modernHeaders(message), Authorization: `Bearer ${TOKENS.bob}` } });
      assert.match(byBob.text, /CANVAS_NOT_FOUND/);
    } finally {
      await client.close();
    }
    const none = await tools();
    assert.equal(none.status, 401);
    assert.equal(none.headers["www-authenticate"], 'Bearer realm="chematic-mcp"');
    const wrong = await tools("not-a-listed-token");
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers["www-authenticate"], 'Bearer realm="chematic-mcp", error="invalid_token"');
    await waitFor(/authenticated call.*caller=alice/);
    for (const token of Object.values(TOKENS)) assert.ok(!server.stderr.includes(token), "no token is ever logged");
  });

  test("SIGHUP re-reads the file; a broken file on reload keeps the tokens in force and says why", async () => {
    assert.equal((await tools(TOKENS.carol)).status, 401);
    writeFileSync(file, `alice sha256:${tokenDigest(TOKENS.alice)}\ncarol sha256:${tokenDigest(TOKENS.carol)}\n`);
    server.child.kill("SIGHUP");
    await waitFor(/SIGHUP: CHEMATIC_AUTH_TOKENS_FILE re-read, 2 tokens in force/);
    assert.equal((await tools(TOKENS.carol)).status, 200);
    assert.equal((await tools(TOKENS.bob)).status, 401, "bob's token was removed");
    writeFileSync(file, "carol sha256:not-hex\n");
    server.child.kill("SIGHUP");
    await waitFor(/SIGHUP: CHEMATIC_AUTH_TOKENS_FILE not used \(line 1 is not '<label> sha256:<64 hex digits>'\); the 2 tokens read before stay in force/);
    assert.equal((await tools(TOKENS.carol)).status, 200, "the tokens read before still work");
  });

  test("a missing variable or a broken file stops start-up naming CHEMATIC_AUTH_TOKENS_FILE (exit 2)", async () => {
    const unset = await startUp(["--transport", "streamable-http", "--port", "0", "--auth", "bearer"], { CHEMATIC_AUTH_TOKENS_FILE: "" });
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /CHEMATIC_AUTH_TOKENS_FILE is required with --auth bearer/);
    const broken = join(dir, "broken");
    writeFileSync(broken, "# nobody\n");
    const empty = await startUp(["--transport", "streamable-http", "--port", "0", "--auth", "bearer"], { CHEMATIC_AUTH_TOKENS_FILE: broken });
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /CHEMATIC_AUTH_TOKENS_FILE \(.*broken\) cannot be used: it lists no token/);
    const usage = await startUp(["--auth", "bearer"], {});
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--auth only apply to --transport streamable-http/);
  });
});

test("without --auth bearer, SIGHUP (a `systemctl reload`) leaves the server serving and says nothing was re-read", async () => {
  const server = new HttpServerProcess([], { CHEMATIC_LOG_LEVEL: "info" });
  const url = await server.url;
  try {
    server.child.kill("SIGHUP");
    await server.waitForStderr(/SIGHUP: nothing to re-read with --auth none; still serving/);
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } };
    const r = await httpSend(url, JSON.stringify(message), { headers: modernHeaders(message) });
    assert.equal(r.status, 200);
  } finally {
    assert.equal(await server.stop(), 0, "still running until SIGTERM, then a clean exit");
  }
});

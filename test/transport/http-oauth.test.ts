/**
 * `--auth oauth` in process: the real transport, server and registry with the OAuth authenticator, against a
 * local fake authorization server (RFC 8414 metadata, a JWKS whose keys rotate) and tokens minted here with
 * jose. Valid, expired (and within the bounded skew), not yet valid, wrong audience, wrong issuer, unsigned
 * (alg none), HMAC-signed, signed by an unpublished key, without a subject, without the required scope,
 * after key rotation, with no header or a malformed one; the RFC 9728 metadata served unauthenticated; the
 * WWW-Authenticate challenges the MCP spec asks for; another subject's canvas; the log naming the subject and
 * never the token; and a 503 when the issuer's keys cannot be fetched.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { createApp, type App } from "../../src/app.js";
import { createLogger } from "../../src/logger.js";
import { endpointOf } from "../../src/server/transport.js";
import { serveHttp, type HttpTransport } from "../../src/transport/http.js";
import { OAuthAuthenticator } from "../../src/domain/auth/oauth.js";
import { MODERN_META } from "../helpers/server-process.js";
import { httpSend, modernHeaders, type HttpReply } from "../helpers/http.js";
import { Forwarder } from "../helpers/forward.js";
import { Changes } from "../helpers/wait.js";
import { FakeAuthorizationServer, unsignedToken } from "../fixtures/fake-oauth.js";

let as: FakeAuthorizationServer;
let app: App;
let http: HttpTransport;
let audience: string;
let front: Forwarder;
const logLines: string[] = [];
const logged = new Changes();

before(async () => {
  as = await new FakeAuthorizationServer().start();
  // The audience is the server's URL, known before it listens: a forwarder's port (port 0) in front of it.
  front = await Forwarder.start();
  audience = front.url("/mcp");
  const env = { ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "info", CHEMATIC_REPLICA_ID: "oa" };
  app = createApp(env);
  const auth = await OAuthAuthenticator.create({ issuer: as.issuer, audience, scopes: ["chem:read"] }, { jwksCooldownMs: 0 });
  const logger = createLogger(env, (line) => {
    logLines.push(line);
    logged.notify();
  });
  http = await serveHttp(endpointOf(app.server, logger), { host: "127.0.0.1", port: 0, auth });
  front.target = { port: http.address.port };
});

after(async () => {
  await http.close(1_000);
  await app.close();
  await as.stop();
  await front.close();
});

function listTools(token: string | undefined, extra: Record<string, string | string[]> = {}): Promise<HttpReply> {
  const message = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } };
  const headers: Record<string, string | string[]> = { ...modernHeaders(message), ...extra };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  return httpSend(http.url, JSON.stringify(message), { headers });
}

function callTool(token: string, name: string, args: Record<string, unknown>): Promise<HttpReply> {
  const message = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: MODERN_META, name, arguments: args } };
  return httpSend(http.url, JSON.stringify(message), { headers: { ...modernHeaders(message), Authorization: `Bearer ${token}` }, timeoutMs: 60_000 });
}

const metadataUrl = () => `${new URL(audience).origin}/.well-known/oauth-protected-resource/mcp`;

/** A 401 (or 403) with the spec's challenge: Bearer, the error when given, the required scope, resource_metadata. */
function refused(reply: HttpReply, status: number, error: string | undefined, description?: RegExp): void {
  assert.equal(reply.status, status, reply.text);
  const challenge = String(reply.headers["www-authenticate"]);
  assert.match(challenge, /^Bearer /);
  assert.ok(challenge.includes(`resource_metadata="${metadataUrl()}"`), challenge);
  assert.ok(challenge.includes('scope="chem:read"'), challenge);
  if (error === undefined) assert.doesNotMatch(challenge, /error=/, "no error code when no credentials were sent (RFC 6750 3.1)");
  else assert.ok(challenge.includes(`error="${error}"`), challenge);
  if (description) assert.match(challenge, description);
}

describe("protected-resource metadata (RFC 9728)", () => {
  test("served unauthenticated at the root and at the /mcp path; resource, issuer and scopes", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const reply = await httpSend(http.url, null, { method: "GET", path });
      assert.equal(reply.status, 200, path);
      assert.match(String(reply.headers["content-type"]), /application\/json/);
      assert.deepEqual(JSON.parse(reply.text), {
        resource: audience,
        authorization_servers: [as.issuer],
        scopes_supported: ["chem:read"],
        bearer_methods_supported: ["header"],
        resource_name: "chematic-mcp",
      });
    }
    const post = await httpSend(http.url, "{}", { path: "/.well-known/oauth-protected-resource", headers: { "Content-Type": "application/json" } });
    assert.equal(post.status, 405);
    assert.equal((await httpSend(http.url, null, { method: "GET", path: "/.well-known/oauth-protected-resource/other" })).status, 404);
  });
});

describe("tokens", () => {
  test("no Authorization header: 401 with resource_metadata and scope, no error code", async () => {
    refused(await listTools(undefined), 401, undefined);
    // Another scheme is no bearer credential either.
    refused(await listTools(undefined, { Authorization: "Basic YWxpY2U6cHc=" }), 401, undefined);
  });

  test("a malformed or repeated Authorization header: 400 invalid_request", async () => {
    const token = await as.mint(audience, { scope: "chem:read" });
    assert.equal((await listTools(undefined, { Authorization: "Bearer" })).status, 400);
    const twice = await listTools(undefined, { Authorization: [`Bearer ${token}`, `Bearer ${token}`] });
    assert.equal(twice.status, 400);
    assert.match(String(twice.headers["www-authenticate"]), /error="invalid_request"/);
  });

  test("a valid token is served, and the call is logged with its subject, never the token", async () => {
    const token = await as.mint(audience, { sub: "alice", scope: "chem:read other" });
    const reply = await listTools(token);
    assert.equal(reply.status, 200, reply.text);
    assert.ok((JSON.parse(reply.text) as { result: { tools: unknown[] } }).result.tools.length > 20);
    // The log line is written after the answer is sent: waited for as it is logged.
    const aliceLogged = () => logLines.some((l) => /authenticated call/.test(l) && /caller=alice/.test(l) && /method=tools\/list/.test(l));
    await logged.until(aliceLogged, "the call's log line", 5_000).catch(() => {});
    assert.ok(aliceLogged(), logLines.join(""));
    assert.ok(!logLines.join("").includes(token), "the token is never logged");
    // scp (a list, as some issuers write it) grants scopes as scope does.
    assert.equal((await listTools(await as.mint(audience, { extra: { scp: ["chem:read"] } }))).status, 200);
  });

  test("expired, not yet valid, issued in the future: refused past the 60 s skew, accepted within it", async () => {
    refused(await listTools(await as.mint(audience, { scope: "chem:read", expIn: -120 })), 401, "invalid_token", /expired/);
    assert.equal((await listTools(await as.mint(audience, { scope: "chem:read", expIn: -30 }))).status, 200, "30 s late is within the skew");
    refused(await listTools(await as.mint(audience, { scope: "chem:read", nbfIn: 120 })), 401, "invalid_token", /nbf/);
    assert.equal((await listTools(await as.mint(audience, { scope: "chem:read", nbfIn: 30 }))).status, 200);
    refused(await listTools(await as.mint(audience, { scope: "chem:read", iatIn: 3600 })), 401, "invalid_token", /iat/);
    assert.equal((await listTools(await as.mint(audience, { scope: "chem:read", iatIn: 30 }))).status, 200, "iat within the skew");
  });

  test("wrong audience, wrong issuer, no subject: 401 invalid_token", async () => {
    refused(await listTools(await as.mint(audience, { scope: "chem:read", aud: "https://other.example/mcp" })), 401, "invalid_token", /aud/);
    // The audience list must contain this server; another resource's token beside it is fine.
    assert.equal((await listTools(await as.mint(audience, { scope: "chem:read", aud: ["https://other.example/mcp", audience] }))).status, 200);
    refused(await listTools(await as.mint(audience, { scope: "chem:read", iss: "http://127.0.0.1:1/evil" })), 401, "invalid_token", /iss/);
    refused(await listTools(await as.mint(audience, { scope: "chem:read", sub: null })), 401, "invalid_token", /subject/);
  });

  test("unsigned (alg none), HMAC-signed, or signed by a key the issuer does not publish: 401", async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: as.issuer, aud: audience, sub: "mallory", scope: "chem:read", iat: now, exp: now + 300 };
    refused(await listTools(unsignedToken(claims)), 401, "invalid_token");
    const hmac = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: as.keys[0]!.kid }).sign(new TextEncoder().encode("a".repeat(32)));
    refused(await listTools(hmac), 401, "invalid_token", /algorithm/);
    refused(await listTools(await as.mint(audience, { scope: "chem:read", key: await as.unpublishedKey() })), 401, "invalid_token", /does not publish/);
    refused(await listTools("not-a-jwt"), 401, "invalid_token");
  });

  test("without the required scope: 403 insufficient_scope naming it", async () => {
    const reply = await listTools(await as.mint(audience, { scope: "other" }));
    refused(reply, 403, "insufficient_scope", /lacks the scope chem:read/);
  });

  test("key rotation: a token signed with the new key is accepted at once; a key no longer published is refused", async () => {
    const before = as.jwksFetches;
    const old = as.keys[as.keys.length - 1]!;
    const fresh = await as.rotate();
    assert.equal((await listTools(await as.mint(audience, { scope: "chem:read", key: fresh }))).status, 200);
    assert.ok(as.jwksFetches > before, "the unknown key ID made the server fetch the key set again");
    assert.equal((await listTools(await as.mint(audience, { scope: "chem:read", key: old }))).status, 200, "both keys published");
    const newest = await as.rotate(true);
    assert.equal((await listTools(await as.mint(audience, { scope: "chem:read", key: newest }))).status, 200);
    refused(await listTools(await as.mint(audience, { scope: "chem:read", key: old })), 401, "invalid_token", /does not publish/);
  });
});

describe("canvases belong to their subject", () => {
  test("bob cannot read alice's canvas (CANVAS_NOT_FOUND, as an unknown ID); alice can", async () => {
    const alice = await as.mint(audience, { sub: "alice", scope: "chem:read" });
    const bob = await as.mint(audience, { sub: "bob", scope: "chem:read" });
    const made = await callTool(alice, "canvas_import", { smiles_list: ["CCO", "c1ccccc1O"] });
    assert.equal(made.status, 200, made.text);
    const canvasId = (JSON.parse(made.text) as { result: { structuredContent: { canvas_id: string } } }).result.structuredContent.canvas_id;
    assert.match(canvasId, /^cv_oa_/);
    const sql = "SELECT count(*) AS n FROM library";
    const byAlice = await callTool(alice, "chembl_dataframe_query", { canvas_id: canvasId, sql });
    assert.deepEqual((JSON.parse(byAlice.text) as { result: { structuredContent: { rows: unknown } } }).result.structuredContent.rows, [{ n: 2 }]);
    const byBob = JSON.parse((await callTool(bob, "chembl_dataframe_query", { canvas_id: canvasId, sql })).text) as {
      result: { structuredContent: { error: { code: string; details: { reason: string } } } };
    };
    assert.equal(byBob.result.structuredContent.error.code, "CANVAS_NOT_FOUND");
    assert.equal(byBob.result.structuredContent.error.details.reason, "unknown");
  });
});

describe("the issuer's keys cannot be fetched", () => {
  test("a token with a key ID not yet known, the issuer down: 503 with Retry-After, not 401", async () => {
    const key = await as.unpublishedKey();
    const token = await as.mint(audience, { scope: "chem:read", key });
    await as.stop();
    const reply = await listTools(token);
    assert.equal(reply.status, 503, reply.text);
    assert.equal(reply.headers["retry-after"], "5");
    assert.match(reply.text, /keys could not be fetched/);
  });
});

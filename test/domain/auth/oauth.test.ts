/**
 * OAuth mode's settings and issuer discovery: CHEMATIC_OAUTH_* parsed strictly (https unless the issuer is
 * loopback, no fragment, scopes as OAuth scope tokens), the metadata URLs in the MCP spec's order (RFC 8414
 * and OpenID, path insertion for an issuer with a path), metadata naming another issuer refused, the
 * resource-metadata URL built from the audience, and the scopes of `scope` and `scp`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "../../../src/config.js";
import { IssuerDiscoveryError, discoverIssuer, loadOAuthConfig, metadataUrls, resourceMetadataUrl, scopesOf } from "../../../src/domain/auth/oauth.js";
import { FakeAuthorizationServer } from "../../fixtures/fake-oauth.js";

test("CHEMATIC_OAUTH_*: required, https unless the issuer is loopback, scopes as tokens", () => {
  assert.deepEqual(
    loadOAuthConfig({
      CHEMATIC_OAUTH_ISSUER: "https://auth.example.org/",
      CHEMATIC_OAUTH_AUDIENCE: "https://mcp.example.org/mcp",
      CHEMATIC_OAUTH_SCOPES: "chem chembl,chem",
    }),
    { issuer: "https://auth.example.org/", audience: "https://mcp.example.org/mcp", scopes: ["chem", "chembl"] },
  );
  assert.deepEqual(loadOAuthConfig({ CHEMATIC_OAUTH_ISSUER: "http://127.0.0.1:9000", CHEMATIC_OAUTH_AUDIENCE: "http://localhost:3000/mcp" }).scopes, []);
  const bad: Array<[NodeJS.ProcessEnv, RegExp]> = [
    [{ CHEMATIC_OAUTH_AUDIENCE: "https://mcp.example.org/mcp" }, /CHEMATIC_OAUTH_ISSUER is required/],
    [{ CHEMATIC_OAUTH_ISSUER: "https://auth.example.org" }, /CHEMATIC_OAUTH_AUDIENCE is required/],
    [{ CHEMATIC_OAUTH_ISSUER: "http://auth.example.org", CHEMATIC_OAUTH_AUDIENCE: "https://m.example.org" }, /CHEMATIC_OAUTH_ISSUER must be an https URL/],
    [{ CHEMATIC_OAUTH_ISSUER: "https://auth.example.org", CHEMATIC_OAUTH_AUDIENCE: "http://127.0.0.1/mcp" }, /CHEMATIC_OAUTH_AUDIENCE must be an https URL/],
    [{ CHEMATIC_OAUTH_ISSUER: "https://auth.example.org", CHEMATIC_OAUTH_AUDIENCE: "https://m.example.org/mcp#x" }, /no credentials, query or fragment/],
    [{ CHEMATIC_OAUTH_ISSUER: "auth.example.org", CHEMATIC_OAUTH_AUDIENCE: "https://m.example.org" }, /absolute https URL/],
    [{ CHEMATIC_OAUTH_ISSUER: "https://a.example", CHEMATIC_OAUTH_AUDIENCE: "https://m.example", CHEMATIC_OAUTH_SCOPES: 'a "b"' }, /not an OAuth scope token/],
    [{ CHEMATIC_OAUTH_ISSUER: "https://a.example", CHEMATIC_OAUTH_AUDIENCE: "https://m.example", CHEMATIC_OAUTH_SCOPES: "offline_access" }, /offline_access/],
  ];
  for (const [env, pattern] of bad)
    assert.throws(
      () => loadOAuthConfig(env),
      (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
      JSON.stringify(env),
    );
});

test("metadata URLs in the MCP spec's order; the resource metadata URL from the audience", () => {
  assert.deepEqual(
    metadataUrls("https://auth.example.com").map((u) => u.href),
    ["https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"],
  );
  assert.deepEqual(
    metadataUrls("https://auth.example.com/tenant1/").map((u) => u.href),
    [
      "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example.com/.well-known/openid-configuration/tenant1",
      "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ],
  );
  assert.equal(resourceMetadataUrl("https://mcp.example.com/mcp"), "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
  assert.equal(resourceMetadataUrl("https://mcp.example.com"), "https://mcp.example.com/.well-known/oauth-protected-resource");
  assert.equal(resourceMetadataUrl("https://mcp.example.com:8443/team/mcp/"), "https://mcp.example.com:8443/.well-known/oauth-protected-resource/team/mcp");
});

test("discovery: RFC 8414 with path insertion, OpenID fallback, a document naming another issuer refused", async () => {
  const tenant = await new FakeAuthorizationServer({ issuerPath: "/tenant1" }).start();
  const openid = await new FakeAuthorizationServer({ metadataAt: "openid", issuerPath: "/tenant1" }).start();
  const liar = await new FakeAuthorizationServer({ claimedIssuer: "https://evil.example" }).start();
  const none = await new FakeAuthorizationServer({ metadataAt: "none" }).start();
  try {
    const found = await discoverIssuer(tenant.issuer);
    assert.equal(found.from, `${tenant.origin}/.well-known/oauth-authorization-server/tenant1`);
    assert.equal(found.jwks_uri, `${tenant.origin}/jwks`);
    const fallback = await discoverIssuer(openid.issuer);
    assert.equal(fallback.from, `${openid.origin}/.well-known/openid-configuration/tenant1`);
    assert.deepEqual(openid.metadataFetches, ["/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1"]);
    await assert.rejects(
      discoverIssuer(liar.issuer),
      (e: unknown) => e instanceof IssuerDiscoveryError && /names the issuer "https:\/\/evil.example"/.test(e.message),
    );
    await assert.rejects(discoverIssuer(none.issuer), /no usable metadata.*HTTP 404.*HTTP 404/);
  } finally {
    await Promise.all([tenant.stop(), openid.stop(), liar.stop(), none.stop()]);
  }
});

test("scopes from scope (space-separated) and scp (a list or a string)", () => {
  assert.deepEqual([...scopesOf({ scope: "a  b" })], ["a", "b"]);
  assert.deepEqual([...scopesOf({ scp: ["c", 5, ""] })], ["c"]);
  assert.deepEqual([...scopesOf({ scope: "a", scp: "d e" })], ["a", "d", "e"]);
  assert.deepEqual([...scopesOf({})], []);
});

/** Proxy selection from HTTPS_PROXY / HTTP_PROXY / NO_PROXY (and their lowercase spellings). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ProxyConfigError, isLoopbackHost, noProxyMatches, proxyAuthorization, proxyFor } from "../../../src/domain/net/proxy.js";

test("NO_PROXY matching rules", () => {
  const cases: Array<[string, string, boolean]> = [
    ["https://api.example.org/x", "*", true],
    ["https://example.org/x", "example.org", true],
    ["https://api.example.org/x", "example.org", true],
    ["https://api.example.org/x", ".example.org", true],
    ["https://example.org/x", ".example.org", true],
    ["https://api.example.org/x", "*.example.org", true],
    ["https://badexample.org/x", "example.org", false],
    ["https://example.org.evil.net/x", "example.org", false],
    ["https://API.Example.ORG/x", "api.example.org", true],
    ["https://example.org./x", "example.org", true],
    ["https://example.org/x", "other.net, example.org", true],
    ["https://example.org/x", "other.net example.org", true],
    ["https://example.org/x", " , ,other.net", false],
    ["https://example.org:8443/x", "example.org:8443", true],
    ["https://example.org/x", "example.org:8443", false],
    ["http://example.org/x", "example.org:80", true],
    ["https://10.1.2.3/x", "10.0.0.0/8", true],
    ["https://11.1.2.3/x", "10.0.0.0/8", false],
    ["https://192.168.1.7/x", "192.168.1.7", true],
    ["https://192.168.1.8/x", "192.168.1.7", false],
    ["https://[fd00::1]/x", "fd00::/8", true],
    ["https://[fe80::1]/x", "fd00::/8", false],
    ["https://[2001:db8::1]/x", "2001:db8::1", true],
    ["https://[2001:db8::1]/x", "[2001:db8::1]", true],
    ["https://[2001:db8::1]:8443/x", "[2001:db8::1]:8443", true],
    ["https://[2001:db8::1]/x", "[2001:db8::1]:8443", false],
    ["https://10.1.2.3/x", "example.org", false],
    ["https://example.org/x", "10.0.0.0/8", false],
    ["https://example.org/x", "bogus/99", false],
  ];
  for (const [url, noProxy, expected] of cases) assert.equal(noProxyMatches(new URL(url), noProxy), expected, `${url} with NO_PROXY=${noProxy}`);
});

test("proxyFor: scheme-specific variable, lowercase fallback, NO_PROXY, loopback always direct", () => {
  const https = new URL("https://pubchem.ncbi.nlm.nih.gov/rest");
  const http = new URL("http://example.org/");
  assert.equal(proxyFor(https, {}), null);
  assert.equal(proxyFor(https, { HTTP_PROXY: "http://p:3128" }), null, "HTTP_PROXY does not apply to https URLs");
  assert.equal(proxyFor(https, { HTTPS_PROXY: "http://p:3128" })?.url.host, "p:3128");
  assert.equal(proxyFor(https, { HTTPS_PROXY: "http://p:3128" })?.variable, "HTTPS_PROXY");
  assert.equal(proxyFor(https, { https_proxy: "http://q:8080" })?.url.host, "q:8080");
  assert.equal(proxyFor(https, { https_proxy: "http://q:8080" })?.variable, "https_proxy");
  assert.equal(proxyFor(https, { HTTPS_PROXY: "http://p:3128", https_proxy: "http://q:8080" })?.url.host, "p:3128", "uppercase wins");
  assert.equal(proxyFor(https, { HTTPS_PROXY: "  ", https_proxy: "http://q:8080" })?.url.host, "q:8080", "empty counts as unset");
  assert.equal(proxyFor(http, { HTTP_PROXY: "proxy.corp:3128" })?.url.href, "http://proxy.corp:3128/", "a scheme-less value is http://");
  assert.equal(proxyFor(https, { HTTPS_PROXY: "http://p:3128", NO_PROXY: ".nih.gov" }), null);
  assert.equal(proxyFor(https, { HTTPS_PROXY: "http://p:3128", no_proxy: "pubchem.ncbi.nlm.nih.gov" }), null);
  for (const local of ["http://localhost:8080/", "http://127.0.0.1:9/", "http://127.8.9.10/", "http://[::1]:80/", "http://db.localhost/"]) {
    assert.equal(proxyFor(new URL(local), { HTTP_PROXY: "http://p:3128" }), null, local);
  }
  assert.ok(isLoopbackHost("::ffff:127.0.0.1"));
  assert.ok(!isLoopbackHost("128.0.0.1"));
});

test("a bad proxy variable is reported by name, never by value", () => {
  for (const value of ["socks5://user:secret@p:1080", "https://user:secret@p:443", "http://"]) {
    assert.throws(
      () => proxyFor(new URL("https://example.org/"), { HTTPS_PROXY: value }),
      (e: unknown) => e instanceof ProxyConfigError && e.message.includes("HTTPS_PROXY") && !e.message.includes("secret"),
      value,
    );
  }
});

test("proxy credentials become a Basic Proxy-Authorization (percent-decoded)", () => {
  assert.equal(proxyAuthorization(new URL("http://p:3128")), undefined);
  assert.equal(proxyAuthorization(new URL("http://us%40er:p%3Ass@p:3128")), `Basic ${Buffer.from("us@er:p:ss").toString("base64")}`);
});

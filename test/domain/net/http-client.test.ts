/**
 * The shared outbound HTTP client against local fakes on 127.0.0.1: JSON, typed failures (status, timeout,
 * abort, network, size cap, bad JSON), gzip, redirects, and the proxy paths (absolute-URI requests for http,
 * CONNECT tunnels for https, NO_PROXY, loopback bypass).
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import net from "node:net";
import { HttpFailure, getJson, httpRequest } from "../../../src/domain/net/http-client.js";
import { makeCertificate, startOrigin, startProxy, type FakeProxy, type FakeServer, type Handler } from "../../helpers/fake-http.js";
import { Changes } from "../../helpers/wait.js";

const routes: Handler = (req, res, body) => {
  const url = new URL(req.url ?? "/", "http://x");
  switch (url.pathname) {
    case "/json":
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, host: req.headers.host }));
      return;
    case "/echo":
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          method: req.method,
          body: body.toString("utf8"),
          contentType: req.headers["content-type"] ?? null,
          ua: req.headers["user-agent"] ?? null,
        }),
      );
      return;
    case "/gzip":
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(zlib.gzipSync(JSON.stringify({ zipped: "yes".repeat(100) })));
      return;
    case "/slow":
      slowAsked++;
      slowArrived.notify();
      // A slow upstream on purpose: the 3 s answer is what the timeout and abort below cut short.
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(200).end("{}");
      }, 3000);
      return;
    case "/big": {
      const text = JSON.stringify({ data: "x".repeat(10_000) });
      res.writeHead(200, { "content-type": "application/json", "content-length": String(text.length) }).end(text);
      return;
    }
    case "/big-chunked":
      res.writeHead(200, { "content-type": "application/json" });
      for (let i = 0; i < 10; i++) res.write("x".repeat(1000));
      res.end();
      return;
    case "/redirect":
      res.writeHead(302, { location: "/json" }).end();
      return;
    case "/downgrade":
      res.writeHead(302, { location: url.searchParams.get("to") ?? "/" }).end();
      return;
    case "/loop":
      res.writeHead(302, { location: "/loop" }).end();
      return;
    case "/unavailable":
      res.writeHead(503, { "content-type": "text/html", "retry-after": "7" }).end("<html><body>Service Unavailable</body></html>");
      return;
    case "/notjson":
      res.writeHead(200, { "content-type": "application/json" }).end("{not json");
      return;
    default:
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ Fault: { Code: "NotFound" } }));
  }
};

let origin: FakeServer;
let proxy: FakeProxy;
/** Requests to /slow so far, told as they arrive. */
let slowAsked = 0;
const slowArrived = new Changes();

before(async () => {
  origin = await startOrigin(routes);
  proxy = await startProxy();
});
after(async () => {
  await origin.close();
  await proxy.close();
});

async function failure(p: Promise<unknown>): Promise<HttpFailure> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof HttpFailure, `an HttpFailure, got ${String(e)}`);
    return e;
  }
  assert.fail("expected a failure");
}

test("GET JSON directly; loopback targets bypass a configured proxy", async () => {
  const before = proxy.seen.length;
  const r = await getJson<{ ok: boolean }>(`${origin.url}/json`, { timeoutMs: 2000, env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } });
  assert.equal(r.status, 200);
  assert.deepEqual(r.data, { ok: true, host: `127.0.0.1:${origin.port}` });
  assert.equal(proxy.seen.length, before, "the proxy saw nothing");
  assert.equal(origin.requests.at(-1)!.headers.accept, "application/json");
  assert.match(String(origin.requests.at(-1)!.headers["user-agent"]), /^chematic-mcp\//);
});

test("typed failures: status (with status, headers, body snippet), invalid_json, too_large, timeout, aborted, network", async () => {
  const status = await failure(getJson(`${origin.url}/unavailable`, { timeoutMs: 2000 }));
  assert.equal(status.kind, "status");
  assert.equal(status.status, 503);
  assert.equal(status.headers?.["retry-after"], "7");
  assert.match(status.bodySnippet ?? "", /Service Unavailable/);
  const raw = await httpRequest(`${origin.url}/unavailable`, { timeoutMs: 2000 });
  assert.equal(raw.status, 503, "httpRequest returns every status");

  assert.equal((await failure(getJson(`${origin.url}/notjson`, { timeoutMs: 2000 }))).kind, "invalid_json");
  assert.equal((await failure(getJson(`${origin.url}/big`, { timeoutMs: 2000, maxBytes: 1000 }))).kind, "too_large");
  assert.equal((await failure(getJson(`${origin.url}/big-chunked`, { timeoutMs: 2000, maxBytes: 1000 }))).kind, "too_large");

  const t0 = Date.now();
  const timeout = await failure(getJson(`${origin.url}/slow`, { timeoutMs: 200 }));
  assert.equal(timeout.kind, "timeout");
  assert.ok(Date.now() - t0 < 2000, "the deadline is kept");

  const controller = new AbortController();
  const asked = slowAsked;
  const aborted = failure(getJson(`${origin.url}/slow`, { timeoutMs: 5000, signal: controller.signal }));
  // Aborted while the request is at the slow origin (its arrival is the event), not after a fixed pause.
  await slowArrived.until(() => slowAsked > asked, "the request to reach /slow", 5_000);
  controller.abort();
  assert.equal((await aborted).kind, "aborted");
  const already = new AbortController();
  already.abort();
  assert.equal((await failure(getJson(`${origin.url}/json`, { timeoutMs: 5000, signal: already.signal }))).kind, "aborted");

  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", () => resolve()));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const refused = await failure(getJson(`http://127.0.0.1:${port}/json`, { timeoutMs: 2000 }));
  assert.equal(refused.kind, "network");
  assert.equal(refused.code, "ECONNREFUSED");

  assert.equal((await failure(getJson("ftp://example.org/x", { timeoutMs: 1000 }))).kind, "network");
});

test("gzip bodies are decoded; POST sends the body; redirects are followed up to the limit", async () => {
  const zipped = await getJson<{ zipped: string }>(`${origin.url}/gzip`, { timeoutMs: 2000 });
  assert.equal(zipped.data.zipped.length, 300);

  const echo = await getJson<{ method: string; body: string; contentType: string }>(`${origin.url}/echo`, {
    timeoutMs: 2000,
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "name=a%2Fb",
  });
  assert.deepEqual([echo.data.method, echo.data.body, echo.data.contentType], ["POST", "name=a%2Fb", "application/x-www-form-urlencoded"]);

  const redirected = await getJson<{ ok: boolean }>(`${origin.url}/redirect`, { timeoutMs: 2000 });
  assert.equal(redirected.data.ok, true);
  assert.equal(redirected.url, `${origin.url}/json`);
  const loop = await failure(getJson(`${origin.url}/loop`, { timeoutMs: 2000 }));
  assert.equal(loop.kind, "network");
  assert.equal(loop.code, "EREDIRECTS");
  assert.equal((await httpRequest(`${origin.url}/redirect`, { timeoutMs: 2000, maxRedirects: 0 })).status, 302);
});

test("http through HTTP_PROXY: absolute-URI request line and Basic proxy credentials", async () => {
  const env = { HTTP_PROXY: `http://us%40er:p%3Ass@127.0.0.1:${proxy.port}` };
  const r = await getJson<{ ok: boolean; host: string }>(`http://origin.test:${origin.port}/json?q=1`, { timeoutMs: 3000, env });
  assert.deepEqual(r.data, { ok: true, host: `origin.test:${origin.port}` });
  const seen = proxy.seen.at(-1)!;
  assert.equal(seen.method, "GET");
  assert.equal(seen.target, `http://origin.test:${origin.port}/json?q=1`);
  assert.equal(seen.proxyAuthorization, `Basic ${Buffer.from("us@er:p:ss").toString("base64")}`);
  assert.ok(!r.url.includes("p:ss"));
});

test("https through HTTPS_PROXY: a CONNECT tunnel, TLS to the origin inside it", async (t) => {
  const certificate = makeCertificate("origin.test");
  if (!certificate) {
    t.skip("the openssl CLI is absent, so no test certificate can be made");
    return;
  }
  const tlsOrigin = await startOrigin(routes, certificate);
  const refusing = await startProxy({ refuseConnect: true });
  t.after(async () => {
    await tlsOrigin.close();
    await refusing.close();
  });
  const before = proxy.seen.length;
  const target = `https://origin.test:${tlsOrigin.port}/json`;
  const r = await getJson<{ ok: boolean; host: string }>(target, { timeoutMs: 3000, env: { HTTPS_PROXY: proxy.url }, ca: certificate.cert });
  assert.deepEqual(r.data, { ok: true, host: `origin.test:${tlsOrigin.port}` });
  assert.deepEqual(proxy.seen.slice(before), [{ method: "CONNECT", target: `origin.test:${tlsOrigin.port}` }], "the proxy saw only the CONNECT");
  assert.equal(tlsOrigin.requests.at(-1)!.url, "/json");

  // The origin's certificate is still checked inside the tunnel.
  const untrusted = await failure(getJson(target, { timeoutMs: 3000, env: { HTTPS_PROXY: proxy.url } }));
  assert.equal(untrusted.kind, "network");

  // Direct https (loopback, so no tunnel even with HTTPS_PROXY set), and no downgrade to http on a redirect.
  const direct = await getJson<{ ok: boolean }>(`https://127.0.0.1:${tlsOrigin.port}/redirect`, {
    timeoutMs: 3000,
    env: { HTTPS_PROXY: proxy.url },
    ca: certificate.cert,
  });
  assert.equal(direct.data.ok, true);
  assert.equal(direct.url, `https://127.0.0.1:${tlsOrigin.port}/json`);
  const downgrade = await failure(
    getJson(`https://127.0.0.1:${tlsOrigin.port}/downgrade?to=${encodeURIComponent(`${origin.url}/json`)}`, { timeoutMs: 3000, ca: certificate.cert }),
  );
  assert.equal(downgrade.code, "EREDIRECTS");

  const refused = await failure(getJson(target, { timeoutMs: 3000, env: { HTTPS_PROXY: refusing.url }, ca: certificate.cert }));
  assert.equal(refused.kind, "network");
  assert.equal(refused.status, 407);
  assert.equal(refusing.seen.at(-1)!.method, "CONNECT");
});

test("NO_PROXY sends a matching host directly; a bad proxy variable fails by name", async () => {
  const before = proxy.seen.length;
  const direct = await failure(getJson("http://origin.test:9/json", { timeoutMs: 1500, env: { HTTP_PROXY: proxy.url, NO_PROXY: "example.org, .test" } }));
  assert.ok(direct.kind === "network" || direct.kind === "timeout", direct.kind);
  assert.equal(proxy.seen.length, before, "the proxy was bypassed");

  const bad = await failure(getJson("https://example.org/x", { timeoutMs: 1000, env: { HTTPS_PROXY: "socks5://user:secret@p:1080" } }));
  assert.equal(bad.kind, "network");
  assert.equal(bad.code, "EPROXYCONFIG");
  assert.match(bad.message, /HTTPS_PROXY/);
  assert.doesNotMatch(bad.message, /secret/);
});

/**
 * The one outbound connection pool (src/domain/net/dispatcher.ts, undici): a 20-page ChEMBL walk (the walk a
 * canvas spill stages) through a local CONNECT proxy opens at most as many tunnels as the pacer lets requests
 * run at once, each tunnel carrying the proxy URL's user:password as Proxy-Authorization; through HTTP_PROXY
 * the absolute-URI requests reuse kept-alive connections to the proxy; direct requests reuse theirs too.
 * Before the pool every proxied request opened its own tunnel and TLS handshake (agent: false).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import tls from "node:tls";
import zlib from "node:zlib";
import { sharedClientFetcher, MAX_BODY_BYTES } from "../../../src/domain/chembl/http.js";
import { closeOutbound } from "../../../src/domain/net/dispatcher.js";
import { HttpFailure, getJson } from "../../../src/domain/net/http-client.js";
import { FakeChembl } from "../../fixtures/chembl/fake-server.js";
import { testService } from "../../fixtures/chembl/harness.js";
import { makeCertificate, startOrigin, startProxy, type FakeProxy } from "../../helpers/fake-http.js";

const CONCURRENCY = 4;
const PAGE_SIZE = 2;
/** 20 pages of 2 rows: CHEMBL235 has 57 activities in the fake. */
const ROWS = 40;

let fake: FakeChembl;
let proxy: FakeProxy;
before(async () => {
  fake = await new FakeChembl("new").start();
  proxy = await startProxy();
});
after(async () => {
  await closeOutbound();
  await proxy.close();
  await fake.stop();
});

/** A TLS front for the (plain http) fake ChEMBL: every TLS connection it accepts is counted. */
async function tlsFront(
  certificate: { key: string; cert: string },
  port: number,
): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  const server = tls.createServer(certificate, (client) => {
    accepted++;
    const upstream = net.connect(port, "127.0.0.1");
    client.pipe(upstream).pipe(client);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

test("a 20-page ChEMBL walk through HTTPS_PROXY opens at most as many CONNECT tunnels as the pacer's concurrency, each with the URL's Proxy-Authorization", async (t) => {
  const certificate = makeCertificate("chembl.test");
  if (!certificate) {
    t.skip("the openssl CLI is absent, so no test certificate can be made");
    return;
  }
  const front = await tlsFront(certificate, fake.port);
  t.after(() => front.close());
  fake.reset();
  fake.delayMs = 20;
  const before = proxy.seen.length;
  const env = { HTTPS_PROXY: `http://walker:s%40cret@127.0.0.1:${proxy.port}` };
  const service = testService(
    fake,
    { apiBaseUrl: `https://chembl.test:${front.port}/chembl/api/data`, maxConcurrentPages: CONCURRENCY, deadlineMs: 20_000, requestTimeoutMs: 10_000 },
    { fetcher: sharedClientFetcher(env, MAX_BODY_BYTES, certificate.cert) },
  );
  const walk = await service.walkActivities({ targetChemblId: "CHEMBL235", view: "potency_ranked" }, { maxRows: ROWS, pageSize: PAGE_SIZE });
  assert.equal(walk.activities.length, ROWS);
  const pages = fake.requestsTo("activity").length;
  assert.equal(pages, 20);
  assert.ok(fake.maxInFlight > 1, "pages ran concurrently");

  const connects = proxy.seen.slice(before);
  assert.ok(connects.length >= 1 && connects.length <= CONCURRENCY, `${connects.length} CONNECT tunnels for ${pages} pages`);
  for (const c of connects) {
    assert.equal(c.method, "CONNECT");
    assert.equal(c.target, `chembl.test:${front.port}`);
    assert.equal(c.proxyAuthorization, `Basic ${Buffer.from("walker:s@cret").toString("base64")}`);
  }
  assert.ok(front.connections() <= CONCURRENCY, `${front.connections()} TLS handshakes at the origin`);
});

test("through HTTP_PROXY the absolute-URI requests of a 20-page walk reuse kept-alive connections to the proxy, credentials on each", async () => {
  fake.reset();
  fake.delayMs = 20;
  const local = await startProxy();
  try {
    const env = { HTTP_PROXY: `http://walker:pw@127.0.0.1:${local.port}` };
    const service = testService(
      fake,
      { apiBaseUrl: `http://chembl.test:${fake.port}/chembl/api/data`, maxConcurrentPages: CONCURRENCY, deadlineMs: 20_000, requestTimeoutMs: 10_000 },
      { fetcher: sharedClientFetcher(env) },
    );
    const walk = await service.walkActivities({ targetChemblId: "CHEMBL235", view: "potency_ranked" }, { maxRows: ROWS, pageSize: PAGE_SIZE });
    assert.equal(walk.activities.length, ROWS);
    const forwarded = local.seen.filter((s) => s.target.startsWith(`http://chembl.test:${fake.port}/chembl/api/data/activity.json?`));
    assert.equal(forwarded.length, 20);
    for (const s of forwarded) assert.equal(s.proxyAuthorization, `Basic ${Buffer.from("walker:pw").toString("base64")}`);
    assert.ok(local.connections() <= CONCURRENCY, `${local.connections()} connections to the proxy`);
  } finally {
    await local.close();
  }
});

test("direct requests reuse kept-alive connections; deflate and br bodies are decoded like gzip", async () => {
  const body = JSON.stringify({ text: "pooled ".repeat(50) });
  const origin = await startOrigin((req, res) => {
    const encoding = new URL(req.url ?? "/", "http://x").searchParams.get("enc");
    if (encoding === "br") res.writeHead(200, { "content-encoding": "br" }).end(zlib.brotliCompressSync(body));
    else if (encoding === "deflate") res.writeHead(200, { "content-encoding": "deflate" }).end(zlib.deflateSync(body));
    else res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  try {
    for (let i = 0; i < 10; i++) {
      const r = await getJson<{ text: string }>(`${origin.url}/json?i=${i}`, { timeoutMs: 2000 });
      assert.equal(r.data.text.length, 350);
    }
    assert.equal(origin.connections(), 1, "ten sequential requests, one kept-alive connection");
    for (const enc of ["br", "deflate"]) {
      const r = await getJson<{ text: string }>(`${origin.url}/json?enc=${enc}`, { timeoutMs: 2000 });
      assert.equal(r.data.text.length, 350, enc);
    }
  } finally {
    await origin.close();
  }
});

test("an HTTP_PROXY answering 407 fails as a proxy refusal (network, status 407, EPROXY), like a refused CONNECT", async () => {
  const refusing = await startOrigin((_req, res) => res.writeHead(407, { "proxy-authenticate": "Basic" }).end("who are you"));
  try {
    await assert.rejects(
      getJson("http://origin.test/json", { timeoutMs: 2000, env: { HTTP_PROXY: refusing.url } }),
      (e: unknown) => e instanceof HttpFailure && e.kind === "network" && e.status === 407 && e.code === "EPROXY",
    );
  } finally {
    await refusing.close();
  }
});

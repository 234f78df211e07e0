/**
 * The one outbound connection pool of the process (ChEMBL, PubChem and the doctor's checks all use it through
 * http-client.ts), built on undici, the library inside Node's own fetch:
 *  - direct requests share one keep-alive Agent (a pool per origin);
 *  - requests through a proxy share one undici ProxyAgent per proxy URL: https targets go through CONNECT
 *    tunnels that stay open and are reused (one tunnel per pooled connection, not one per request), http
 *    targets are sent to the proxy as absolute-URI requests on kept-alive connections (proxyTunnel: false);
 *    credentials in the proxy URL become its Proxy-Authorization header.
 * Which proxy a request takes (HTTPS_PROXY / HTTP_PROXY / NO_PROXY with CIDR blocks and ports, the upper-case
 * spelling first, loopback never proxied) is still decided by proxy.ts, per request: undici's own
 * EnvHttpProxyAgent reads NO_PROXY differently (no CIDR blocks) and lets the lower-case spelling win.
 *
 * undici's own connect, header and body timeouts are off: every request carries its deadline as an AbortSignal
 * (http-client.ts), the one clock for the whole request as before.
 */
import type { Dispatcher } from "undici";
import { proxyAuthorization, type ProxyChoice } from "./proxy.js";

type Undici = typeof import("undici");
let undici: Promise<Undici> | undefined;
/**
 * undici is imported on the first outbound request, not at start-up: loading it costs about 0.4 s of CPU on
 * the 2-core machine (docs/performance.md, cold start), and a server that only answers chemistry never needs it.
 */
export function loadUndici(): Promise<Undici> {
  return (undici ??= import("undici"));
}

/** Extra trusted CA certificates (PEM) for the origin's TLS, e.g. a test server's. */
export type CaOption = string | Buffer | Array<string | Buffer>;

/** Idle kept-alive connections close after this long (a server's Keep-Alive hint may shorten it). */
const KEEP_ALIVE_MS = 10_000;
/** Distinct (proxy, CA) pairs kept; past that the oldest pool is closed. Real runs have one or two. */
const MAX_POOLS = 16;

const NO_UNDICI_TIMEOUTS = { headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: KEEP_ALIVE_MS } as const;

const pools = new Map<string, Dispatcher>();

function caKey(ca: CaOption | undefined): string {
  if (ca === undefined) return "";
  return (Array.isArray(ca) ? ca : [ca]).map((c) => c.toString()).join("\n");
}

function withoutCredentials(url: URL): string {
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}

function create({ Agent, ProxyAgent }: Undici, proxy: ProxyChoice | null, ca: CaOption | undefined): Dispatcher {
  const tls = { timeout: 0, ...(ca !== undefined ? { ca } : {}) };
  if (!proxy) return new Agent({ ...NO_UNDICI_TIMEOUTS, connect: tls });
  // Our own Basic header (it also covers a user name without a password, which undici would drop).
  const token = proxyAuthorization(proxy.url);
  return new ProxyAgent({
    ...NO_UNDICI_TIMEOUTS,
    uri: withoutCredentials(proxy.url),
    ...(token ? { token } : {}),
    proxyTunnel: false,
    requestTls: tls,
    proxyTls: { timeout: 0 },
  });
}

/** The pooled dispatcher for a request going directly (proxy null) or through `proxy`. */
export async function outboundDispatcher(proxy: ProxyChoice | null, ca?: CaOption): Promise<Dispatcher> {
  const lib = await loadUndici();
  const key = `${proxy ? proxy.url.href : "direct"}\u0000${caKey(ca)}`;
  let pool = pools.get(key);
  if (pool) {
    // Most recently used last, so the first entry is the one to evict.
    pools.delete(key);
    pools.set(key, pool);
    return pool;
  }
  pool = create(lib, proxy, ca);
  pools.set(key, pool);
  while (pools.size > MAX_POOLS) {
    const [oldest, evicted] = pools.entries().next().value as [string, Dispatcher];
    pools.delete(oldest);
    void evicted.close().catch(() => {});
  }
  return pool;
}

/** Closes every pooled connection (tests, shutdown); later requests open new pools. */
export async function closeOutbound(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close().catch(() => {})));
}

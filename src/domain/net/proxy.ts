/**
 * Which proxy, if any, an outbound request goes through: HTTPS_PROXY for https URLs, HTTP_PROXY for http URLs,
 * NO_PROXY for exceptions (the lowercase spellings are read when the uppercase one is unset or empty, as curl,
 * Go and Python do). Node's built-in fetch ignores all of these, hence this module.
 *
 * NO_PROXY: entries separated by commas or whitespace, case-insensitive.
 *  - "*" bypasses the proxy for every host.
 *  - a host name matches itself and its subdomains ("example.org" and ".example.org" both match example.org
 *    and api.example.org; a leading "*." is read as ".").
 *  - an IP address matches that address; a CIDR block ("10.0.0.0/8", "fd00::/8") matches addresses in it.
 *    IPv6 addresses may be bracketed. Names are never resolved to addresses for matching.
 *  - an entry with ":port" matches only that port.
 * Loopback targets (localhost, *.localhost, 127.0.0.0/8, ::1) are never sent to a proxy, as in Go's net/http.
 */
import { BlockList, isIP } from "node:net";

export class ProxyConfigError extends Error {}

export interface ProxyChoice {
  /** The proxy's URL (http: only), credentials included when the variable had them. */
  url: URL;
  /** Which variable it came from, e.g. "HTTPS_PROXY" (never the value: it may hold credentials). */
  variable: string;
}

/** The uppercase variable's value, else the lowercase one's; empty counts as unset. */
function firstSet(upper: string, upperValue: string | undefined, lowerValue: string | undefined): { name: string; value: string } | undefined {
  if (upperValue !== undefined && upperValue.trim() !== "") return { name: upper, value: upperValue.trim() };
  if (lowerValue !== undefined && lowerValue.trim() !== "") return { name: upper.toLowerCase(), value: lowerValue.trim() };
  return undefined;
}

/** Host of a URL without IPv6 brackets, lower-cased, without a trailing dot. */
function bareHost(url: URL): string {
  let host = url.hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host.endsWith(".")) host = host.slice(0, -1);
  return host;
}

function defaultPort(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

export function isLoopbackHost(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith("127.");
  if (family === 6) {
    const list = new BlockList();
    list.addSubnet("::1", 128, "ipv6");
    list.addSubnet("::ffff:127.0.0.0", 104, "ipv6");
    return list.check(host, "ipv6");
  }
  return false;
}

interface NoProxyEntry {
  host?: string;
  block?: BlockList;
  ip?: string;
  port?: number;
  all?: boolean;
}

function parseNoProxyEntry(raw: string): NoProxyEntry | undefined {
  let entry = raw.trim().toLowerCase();
  if (entry === "") return undefined;
  if (entry === "*") return { all: true };
  let port: number | undefined;
  // [v6]:port, [v6], v4:port, host:port; a bare IPv6 address has several colons and no port.
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    entry = bracketed[1]!;
    if (bracketed[2]) port = Number(bracketed[2]);
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    const [h, p] = entry.split(":");
    if (p && /^\d+$/.test(p)) {
      entry = h!;
      port = Number(p);
    }
  }
  const slash = entry.indexOf("/");
  if (slash > 0) {
    const addr = entry.slice(0, slash);
    const prefix = Number(entry.slice(slash + 1));
    const family = isIP(addr);
    if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) return undefined;
    const block = new BlockList();
    block.addSubnet(addr, prefix, family === 4 ? "ipv4" : "ipv6");
    return { block, port };
  }
  if (isIP(entry) !== 0) return { ip: entry, port };
  if (entry.startsWith("*.")) entry = entry.slice(1);
  if (entry.startsWith(".")) entry = entry.slice(1);
  if (entry.endsWith(".")) entry = entry.slice(0, -1);
  if (entry === "") return undefined;
  return { host: entry, port };
}

/** True when NO_PROXY (the raw value) exempts this URL. */
export function noProxyMatches(url: URL, noProxy: string): boolean {
  const host = bareHost(url);
  const port = defaultPort(url);
  const family = isIP(host);
  for (const raw of noProxy.split(/[\s,]+/)) {
    const e = parseNoProxyEntry(raw);
    if (!e) continue;
    if (e.all) return true;
    if (e.port !== undefined && e.port !== port) continue;
    if (e.block && family !== 0 && e.block.check(host, family === 4 ? "ipv4" : "ipv6")) return true;
    if (e.ip !== undefined && family !== 0 && sameIp(e.ip, host)) return true;
    if (e.host !== undefined && family === 0 && (host === e.host || host.endsWith(`.${e.host}`))) return true;
  }
  return false;
}

function sameIp(a: string, b: string): boolean {
  if (a === b) return true;
  const fa = isIP(a);
  if (fa !== isIP(b)) return false;
  const list = new BlockList();
  list.addAddress(a, fa === 4 ? "ipv4" : "ipv6");
  return list.check(b, fa === 4 ? "ipv4" : "ipv6");
}

/**
 * The proxy for `url` from the environment, or null for a direct connection.
 * Throws ProxyConfigError when the variable that applies is not a usable http:// proxy URL (the message names
 * the variable, never its value).
 */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv = process.env): ProxyChoice | null {
  const isHttps = url.protocol === "https:";
  const chosen = isHttps ? firstSet("HTTPS_PROXY", env.HTTPS_PROXY, env.https_proxy) : firstSet("HTTP_PROXY", env.HTTP_PROXY, env.http_proxy);
  if (!chosen) return null;
  if (isLoopbackHost(bareHost(url))) return null;
  const noProxy = firstSet("NO_PROXY", env.NO_PROXY, env.no_proxy);
  if (noProxy && noProxyMatches(url, noProxy.value)) return null;
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(chosen.value) ? chosen.value : `http://${chosen.value}`);
  } catch {
    throw new ProxyConfigError(`${chosen.name} is not a valid proxy URL`);
  }
  if (proxy.protocol !== "http:") {
    throw new ProxyConfigError(
      `${chosen.name} must be an http:// proxy URL (got a ${proxy.protocol.replace(/:$/, "")}:// URL; TLS to the proxy itself is not supported)`,
    );
  }
  if (proxy.hostname === "") throw new ProxyConfigError(`${chosen.name} has no proxy host`);
  return { url: proxy, variable: chosen.name };
}

/** "Basic ..." for a proxy URL with credentials, else undefined. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === "" && proxy.password === "") return undefined;
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
}

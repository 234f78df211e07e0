/**
 * Header rules of the Streamable HTTP transport, kept free of I/O so each can be tested alone:
 * media types (Accept, Content-Type), loopback Host and Origin checks (DNS-rebinding protection),
 * `--allowed-origin` parsing, and the `=?base64?...?=` sentinel of mirrored header values.
 */
import { isIPv4 } from "node:net";

/** One media range of an Accept header, with its quality. */
interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(",")) {
    const [range = "", ...params] = part.split(";");
    const [type = "", subtype = ""] = range.trim().toLowerCase().split("/");
    if (!type || !subtype) continue;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split("=").map((s) => s.trim());
      if (k?.toLowerCase() === "q" && v !== undefined) {
        const n = Number(v);
        q = Number.isFinite(n) ? n : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/**
 * Whether an Accept header admits a media type (`type/subtype`): an exact range, `type/*` or `*\/*` with
 * q > 0. The most specific matching range decides, so `application/json;q=0, *\/*` refuses JSON.
 * No Accept header admits everything (RFC 9110, 12.5.1).
 */
export function acceptAdmits(header: string | undefined, mediaType: string): boolean {
  if (header === undefined || header.trim() === "") return true;
  const [type, subtype] = mediaType.split("/");
  let best: MediaRange | undefined;
  let bestRank = -1;
  for (const r of parseAccept(header)) {
    const rank = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === "*" ? 1 : r.type === "*" && r.subtype === "*" ? 0 : -1;
    if (rank > bestRank) {
      best = r;
      bestRank = rank;
    }
  }
  return best !== undefined && best.q > 0;
}

/** `application/json`, optionally with `charset=utf-8`; anything else is 415. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type = "", ...params] = header.split(";");
  if (type.trim().toLowerCase() !== "application/json") return false;
  return params.every((p) => {
    const [k = "", v = ""] = p.split("=").map((s) => s.trim().toLowerCase());
    return k !== "charset" || v.replace(/^"|"$/g, "") === "utf-8";
  });
}

/** localhost, 127.0.0.0/8 or ::1, given a URL hostname (lower case, IPv6 in brackets). */
function isLoopbackHostname(hostname: string): boolean {
  if (hostname === "localhost" || hostname === "[::1]" || hostname === "::1") return true;
  return isIPv4(hostname) && hostname.startsWith("127.");
}

/** Whether an address given to --bind is a loopback one. */
export function isLoopbackAddress(address: string): boolean {
  return address === "::1" || address === "localhost" || (isIPv4(address) && address.startsWith("127.")) || /^::ffff:127\./i.test(address);
}

function parseHttpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** A Host header that names a loopback host (any port); `evil.example` rebound to 127.0.0.1 does not. */
export function isLoopbackHost(host: string): boolean {
  if (host === "" || /[\s/?#@\\]/.test(host)) return false;
  const url = parseHttpUrl(`http://${host}`);
  return url !== undefined && isLoopbackHostname(url.hostname);
}

/**
 * Normalises an Origin: `scheme://host[:port]` exactly (http or https; no path, query, fragment or user),
 * with the default port dropped and the host in lower case. Undefined for anything else, including "null".
 */
export function normalizeOrigin(text: string): string | undefined {
  if (!/^https?:\/\/[^/?#@\s]+$/i.test(text)) return undefined;
  const url = parseHttpUrl(text);
  if (!url || url.username || url.password || url.pathname !== "/" || url.search || url.hash) return undefined;
  return url.origin;
}

/** An Origin header is allowed when it is a loopback origin or one listed with --allowed-origin. */
export function isAllowedOrigin(origin: string, allowed: ReadonlySet<string>): boolean {
  const normalized = normalizeOrigin(origin);
  if (normalized === undefined) return false;
  return allowed.has(normalized) || isLoopbackHostname(new URL(normalized).hostname);
}

/** RFC 9110 field-value characters: visible ASCII, space and tab. */
export function isHeaderSafe(value: string): boolean {
  return /^[\x20-\x7e\t]*$/.test(value);
}

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The value a mirrored header stands for: surrounding whitespace trimmed, and the `=?base64?...?=` form
 * decoded (strict Base64 of UTF-8). Undefined when the sentinel form is malformed. Only a value with both
 * markers is the sentinel form (the spec's "starts with =?base64? and ends with ?="): one missing either is
 * a literal value.
 */
export function decodeMirroredValue(raw: string): string | undefined {
  const value = raw.trim();
  if (!value.startsWith("=?base64?") || !value.endsWith("?=") || value.length < "=?base64??=".length) return value;
  const m = SENTINEL.exec(value);
  if (!m || m[1]!.length % 4 !== 0) return undefined;
  try {
    return utf8.decode(Buffer.from(m[1]!, "base64"));
  } catch {
    return undefined;
  }
}

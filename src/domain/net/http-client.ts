/**
 * The shared outbound HTTP client (PubChem now, ChEMBL later): one request with an overall deadline, an
 * AbortSignal, a response-size cap, gzip/deflate/br decoding, a few redirects, and the proxy variables
 * (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; see proxy.ts) that Node's fetch ignores:
 *  - http:// through a proxy: the request goes to the proxy with an absolute URI ("GET http://host/path").
 *  - https:// through a proxy: a CONNECT tunnel to host:port, then TLS to the origin inside it (the proxy sees
 *    only the host name and port).
 * Built on node:http/node:https/node:tls only.
 *
 * Failures are typed (HttpFailure.kind) so that each caller maps them to its own error codes:
 *   timeout      the deadline passed (connect, headers and body together)
 *   aborted      the caller's AbortSignal fired
 *   network      DNS, connection, TLS, proxy or protocol failure; too many redirects
 *   status       a non-2xx answer (getJson only; httpRequest returns every status); status, headers and the
 *                start of the body are attached for classification - callers never show upstream text
 *   too_large    the (decoded) body passed maxBytes
 *   invalid_json the 2xx body is not JSON (getJson only)
 * Retries, base URLs and per-service headers are the caller's business.
 */
import http from "node:http";
import https from "node:https";
import tls from "node:tls";
import zlib from "node:zlib";
import { isIP } from "node:net";
import type { Duplex, Readable } from "node:stream";
import { PACKAGE } from "../../version.js";
import { ProxyConfigError, bareHost, defaultPort, proxyAuthorization, proxyFor } from "./proxy.js";

export type HttpFailureKind = "timeout" | "aborted" | "network" | "status" | "too_large" | "invalid_json";

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const STATUS_BODY_SNIPPET_BYTES = 4096;

export class HttpFailure extends Error {
  readonly kind: HttpFailureKind;
  /** The URL without credentials. */
  readonly url: string;
  readonly status?: number;
  readonly headers?: http.IncomingHttpHeaders;
  /** First bytes of a non-2xx body, for classification only (never to be shown: it is upstream text). */
  readonly bodySnippet?: string;
  /** A system error code such as ECONNREFUSED, when there is one. */
  readonly code?: string;

  constructor(
    kind: HttpFailureKind,
    message: string,
    init: { url: string; status?: number; headers?: http.IncomingHttpHeaders; bodySnippet?: string; code?: string; cause?: unknown },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "HttpFailure";
    this.kind = kind;
    this.url = init.url;
    if (init.status !== undefined) this.status = init.status;
    if (init.headers !== undefined) this.headers = init.headers;
    if (init.bodySnippet !== undefined) this.bodySnippet = init.bodySnippet;
    if (init.code !== undefined) this.code = init.code;
  }
}

export interface HttpRequestOptions {
  method?: "GET" | "POST" | "HEAD";
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Overall deadline of the request in milliseconds (connect, redirects, headers and body). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Cap on the decoded body (default 16 MiB). */
  maxBytes?: number;
  /** Redirects followed (default 3); 0 returns the 3xx answer as it is. */
  maxRedirects?: number;
  /** Where proxy variables are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Extra trusted CA certificates (PEM), e.g. a test server's or a TLS-inspecting proxy's. */
  ca?: string | Buffer | Array<string | Buffer>;
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The final URL (after redirects), without credentials. */
  url: string;
}

export function redactUrl(url: URL): string {
  if (url.username === "" && url.password === "") return url.href;
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}

export const USER_AGENT = `${PACKAGE.name}/${PACKAGE.version} (Node.js ${process.versions.node})`;

interface Attempt {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** Errors raised while the request runs; `settle` makes sure the promise is decided once. */
class Deadline {
  readonly controller = new AbortController();
  private timer: NodeJS.Timeout;
  private readonly onCallerAbort: () => void;

  constructor(
    timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => this.controller.abort("timeout"), timeoutMs);
    this.onCallerAbort = () => this.controller.abort("aborted");
    if (caller?.aborted) this.controller.abort("aborted");
    else caller?.addEventListener("abort", this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  failure(url: string, timeoutMs: number): HttpFailure {
    return this.signal.reason === "aborted"
      ? new HttpFailure("aborted", `request to ${url} was cancelled`, { url })
      : new HttpFailure("timeout", `request to ${url} took longer than ${timeoutMs} ms`, { url });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener("abort", this.onCallerAbort);
  }
}

function networkFailure(url: string, e: unknown, context: string): HttpFailure {
  if (e instanceof HttpFailure) return e;
  const err = e as NodeJS.ErrnoException;
  const code = typeof err?.code === "string" ? err.code : undefined;
  return new HttpFailure("network", `${context} ${url} failed: ${code ?? err?.message ?? String(e)}`, { url, ...(code ? { code } : {}), cause: e });
}

/** Opens a CONNECT tunnel through `proxy` to the origin of `target`. */
function connectTunnel(proxy: URL, target: URL, signal: AbortSignal): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const authority = `${bareHost(target).includes(":") ? `[${bareHost(target)}]` : bareHost(target)}:${defaultPort(target)}`;
    const headers: Record<string, string> = { host: authority, "user-agent": USER_AGENT };
    const auth = proxyAuthorization(proxy);
    if (auth) headers["proxy-authorization"] = auth;
    const req = http.request({
      host: bareHost(proxy),
      port: defaultPort(proxy),
      method: "CONNECT",
      path: authority,
      headers,
      agent: false,
    });
    const onAbort = () => req.destroy(new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    req.once("connect", (res, socket) => {
      signal.removeEventListener("abort", onAbort);
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(
          new HttpFailure("network", `proxy refused the tunnel to ${authority} (HTTP ${res.statusCode})`, {
            url: redactUrl(target),
            status: res.statusCode ?? 0,
            code: "EPROXY",
          }),
        );
        return;
      }
      resolve(socket);
    });
    req.on("error", (e) => {
      signal.removeEventListener("abort", onAbort);
      reject(networkFailure(redactUrl(target), e, "proxy connection for"));
    });
    req.end();
  });
}

function decodedStream(res: http.IncomingMessage): Readable {
  const encoding = String(res.headers["content-encoding"] ?? "identity")
    .trim()
    .toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") return res.pipe(zlib.createGunzip());
  if (encoding === "deflate") return res.pipe(zlib.createInflate());
  if (encoding === "br") return res.pipe(zlib.createBrotliDecompress());
  return res;
}

async function once(attempt: Attempt, options: HttpRequestOptions, deadline: Deadline, maxBytes: number): Promise<HttpResponse> {
  const { url } = attempt;
  const shown = redactUrl(url);
  let proxy;
  try {
    proxy = proxyFor(url, options.env ?? process.env);
  } catch (e) {
    if (e instanceof ProxyConfigError) throw new HttpFailure("network", e.message, { url: shown, code: "EPROXYCONFIG" });
    throw e;
  }
  const isHttps = url.protocol === "https:";
  const headers: Record<string, string> = { "user-agent": USER_AGENT, "accept-encoding": "gzip, deflate, br", ...attempt.headers };
  if (attempt.body !== undefined) headers["content-length"] = String(attempt.body.length);

  let request: http.ClientRequest;
  if (!proxy) {
    const mod = isHttps ? https : http;
    request = mod.request(url, { method: attempt.method, headers, ...(isHttps && options.ca ? { ca: options.ca } : {}) });
  } else if (!isHttps) {
    const auth = proxyAuthorization(proxy.url);
    request = http.request({
      host: bareHost(proxy.url),
      port: defaultPort(proxy.url),
      method: attempt.method,
      path: redactUrl(url),
      headers: { ...headers, host: url.host, ...(auth ? { "proxy-authorization": auth } : {}) },
      agent: false,
    });
  } else {
    let tunnel: Duplex;
    try {
      tunnel = await connectTunnel(proxy.url, url, deadline.signal);
    } catch (e) {
      if (deadline.signal.aborted) throw deadline.failure(shown, options.timeoutMs);
      throw e;
    }
    const host = bareHost(url);
    const socket = tls.connect({
      socket: tunnel,
      host,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ...(options.ca ? { ca: options.ca } : {}),
    });
    // No agent: with createConnection and no agent, Node uses the tunnelled socket for this one request.
    request = https.request(url, { method: attempt.method, headers, createConnection: () => socket });
  }

  return new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      deadline.signal.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => {
      request.destroy();
      finish(() => reject(deadline.failure(shown, options.timeoutMs)));
    };
    if (deadline.signal.aborted) {
      onAbort();
      return;
    }
    deadline.signal.addEventListener("abort", onAbort, { once: true });

    request.on("error", (e) => finish(() => reject(networkFailure(shown, e, `${attempt.method}`))));
    request.once("response", (res) => {
      const status = res.statusCode ?? 0;
      const declared = Number(res.headers["content-length"]);
      const identity = (res.headers["content-encoding"] ?? "identity") === "identity";
      // Settle first: destroying an unfinished response emits 'aborted' synchronously.
      if (identity && Number.isFinite(declared) && declared > maxBytes) {
        finish(() =>
          reject(new HttpFailure("too_large", `response from ${shown} is ${declared} bytes, over the ${maxBytes}-byte cap`, { url: shown, status })),
        );
        res.destroy();
        return;
      }
      const stream = attempt.method === "HEAD" ? null : decodedStream(res);
      if (!stream) {
        res.resume();
        finish(() => resolve({ status, headers: res.headers, body: Buffer.alloc(0), url: shown }));
        return;
      }
      const chunks: Buffer[] = [];
      let total = 0;
      stream.on("data", (chunk: Buffer) => {
        total += chunk.length;
        if (total > maxBytes) {
          finish(() => reject(new HttpFailure("too_large", `response from ${shown} is over the ${maxBytes}-byte cap`, { url: shown, status })));
          res.destroy();
          stream.destroy();
          return;
        }
        chunks.push(chunk);
      });
      stream.once("end", () => finish(() => resolve({ status, headers: res.headers, body: Buffer.concat(chunks), url: shown })));
      stream.on("error", (e) => finish(() => reject(networkFailure(shown, e, "reading the response of"))));
      res.on("error", (e) => finish(() => reject(networkFailure(shown, e, "reading the response of"))));
      res.once("aborted", () =>
        finish(() => reject(new HttpFailure("network", `connection closed while reading ${shown}`, { url: shown, status, code: "ECONNRESET" }))),
      );
    });
    request.end(attempt.body);
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** One HTTP request; resolves with any status (redirects followed), rejects with HttpFailure. */
export async function httpRequest(target: string | URL, options: HttpRequestOptions): Promise<HttpResponse> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new HttpFailure("network", "invalid request URL", { url: String(target).slice(0, 200), code: "EINVALIDURL" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new HttpFailure("network", `unsupported URL scheme ${url.protocol}`, { url: redactUrl(url), code: "EINVALIDURL" });
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = options.maxRedirects ?? 3;
  const deadline = new Deadline(options.timeoutMs, options.signal);
  const lower = Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  let attempt: Attempt = {
    url,
    method: options.method ?? "GET",
    headers: lower,
    body: options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body, "utf8"),
  };
  try {
    for (let redirects = 0; ; redirects++) {
      if (deadline.signal.aborted) throw deadline.failure(redactUrl(attempt.url), options.timeoutMs);
      const response = await once(attempt, options, deadline, maxBytes);
      const location = response.headers.location;
      if (!REDIRECTS.has(response.status) || !location || maxRedirects === 0) return response;
      if (redirects >= maxRedirects) {
        throw new HttpFailure("network", `more than ${maxRedirects} redirects from ${redactUrl(url)}`, {
          url: response.url,
          status: response.status,
          code: "EREDIRECTS",
        });
      }
      const next = new URL(location, attempt.url);
      if (next.protocol !== "http:" && next.protocol !== "https:") {
        throw new HttpFailure("network", `redirect to an unsupported scheme ${next.protocol}`, {
          url: response.url,
          status: response.status,
          code: "EREDIRECTS",
        });
      }
      if (attempt.url.protocol === "https:" && next.protocol === "http:") {
        throw new HttpFailure("network", `refused a redirect from https to http (${redactUrl(next)})`, {
          url: response.url,
          status: response.status,
          code: "EREDIRECTS",
        });
      }
      const headers = { ...attempt.headers };
      if (next.origin !== attempt.url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
      const keepMethod = response.status === 307 || response.status === 308;
      if (!keepMethod) {
        delete headers["content-type"];
        delete headers["content-length"];
      }
      attempt = {
        url: next,
        method: keepMethod ? attempt.method : attempt.method === "HEAD" ? "HEAD" : "GET",
        headers,
        body: keepMethod ? attempt.body : undefined,
      };
    }
  } finally {
    deadline.dispose();
  }
}

export interface JsonResponse<T> {
  status: number;
  headers: http.IncomingHttpHeaders;
  data: T;
  url: string;
}

/**
 * A request whose 2xx answer must be JSON. Non-2xx answers reject with kind "status" (status, headers and the
 * first 4 KiB of the body attached); a 2xx body that is not JSON rejects with kind "invalid_json".
 */
export async function getJson<T = unknown>(target: string | URL, options: HttpRequestOptions): Promise<JsonResponse<T>> {
  const response = await httpRequest(target, { ...options, headers: { accept: "application/json", ...options.headers } });
  if (response.status < 200 || response.status > 299) {
    throw new HttpFailure("status", `HTTP ${response.status} from ${response.url}`, {
      url: response.url,
      status: response.status,
      headers: response.headers,
      bodySnippet: response.body.subarray(0, STATUS_BODY_SNIPPET_BYTES).toString("utf8"),
    });
  }
  try {
    return { status: response.status, headers: response.headers, data: JSON.parse(response.body.toString("utf8")) as T, url: response.url };
  } catch (e) {
    throw new HttpFailure("invalid_json", `the answer from ${response.url} is not JSON`, {
      url: response.url,
      status: response.status,
      headers: response.headers,
      cause: e,
    });
  }
}

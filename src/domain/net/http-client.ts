/**
 * The shared outbound HTTP client (ChEMBL, PubChem, the doctor's checks): one request with an overall deadline,
 * an AbortSignal, a response-size cap, gzip/deflate/br decoding, a few redirects, and the proxy variables
 * (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; proxy.ts chooses) that Node's fetch ignores. Connections come from the
 * one undici pool in dispatcher.ts: kept alive between requests, and through a proxy
 *  - http:// goes to the proxy as an absolute-URI request ("GET http://host/path");
 *  - https:// goes through a CONNECT tunnel to host:port with TLS to the origin inside it (the proxy sees only
 *    the host name and port); the tunnel is a pooled connection, reused by later requests to that origin.
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
import zlib from "node:zlib";
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { PACKAGE } from "../../version.js";
import { loadUndici, outboundDispatcher, type CaOption } from "./dispatcher.js";
import { ProxyConfigError, proxyFor } from "./proxy.js";

/** Response headers, names lower-cased; a repeated header is an array. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

export type HttpFailureKind = "timeout" | "aborted" | "network" | "status" | "too_large" | "invalid_json";

const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const STATUS_BODY_SNIPPET_BYTES = 4096;

export class HttpFailure extends Error {
  readonly kind: HttpFailureKind;
  /** The URL without credentials. */
  readonly url: string;
  readonly status?: number;
  readonly headers?: ResponseHeaders;
  /** First bytes of a non-2xx body, for classification only (never to be shown: it is upstream text). */
  readonly bodySnippet?: string;
  /** A system error code such as ECONNREFUSED, when there is one. */
  readonly code?: string;

  constructor(
    kind: HttpFailureKind,
    message: string,
    init: { url: string; status?: number; headers?: ResponseHeaders; bodySnippet?: string; code?: string; cause?: unknown },
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
  ca?: CaOption;
}

export interface HttpResponse {
  status: number;
  headers: ResponseHeaders;
  body: Buffer;
  /** The final URL (after redirects), without credentials. */
  url: string;
}

function redactUrl(url: URL): string {
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

/** undici reports a refused CONNECT only in its message ("Proxy response (407) !== 200 when HTTP Tunneling"). */
const REFUSED_TUNNEL = /^Proxy response \((\d{3})\) !== 200/;

function requestFailure(url: URL, e: unknown, method: string): HttpFailure {
  const shown = redactUrl(url);
  const refused = e instanceof Error ? REFUSED_TUNNEL.exec(e.message) : null;
  if (refused) {
    const status = Number(refused[1]);
    return new HttpFailure("network", `proxy refused the tunnel to ${url.host} (HTTP ${status})`, { url: shown, status, code: "EPROXY", cause: e });
  }
  if (e instanceof Error && /^Proxy Authentication Required \(407\)/.test(e.message)) {
    return new HttpFailure("network", `proxy refused the request to ${url.host} (HTTP 407)`, { url: shown, status: 407, code: "EPROXY", cause: e });
  }
  return networkFailure(shown, e, method);
}

/** Drops an unread body (undici's body errors with AbortError when destroyed; nobody is listening then). */
function discard(body: Readable): void {
  body.on("error", () => {});
  body.destroy();
}

function decodedStream(body: Readable, headers: ResponseHeaders): Readable {
  const encoding = String(headers["content-encoding"] ?? "identity")
    .trim()
    .toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") return body.pipe(zlib.createGunzip());
  if (encoding === "deflate") return body.pipe(zlib.createInflate());
  if (encoding === "br") return body.pipe(zlib.createBrotliDecompress());
  return body;
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
  const headers: Record<string, string> = { "user-agent": USER_AGENT, "accept-encoding": "gzip, deflate, br", ...attempt.headers };
  // undici writes Host and Content-Length itself (and refuses a hand-set Proxy-Authorization: the proxy's own
  // credentials are the dispatcher's business).
  delete headers.host;
  delete headers["content-length"];
  delete headers["proxy-authorization"];
  if (deadline.signal.aborted) throw deadline.failure(shown, options.timeoutMs);

  let response: Dispatcher.ResponseData;
  try {
    response = await (
      await outboundDispatcher(proxy, options.ca)
    ).request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: attempt.method,
      headers,
      ...(attempt.body !== undefined ? { body: attempt.body } : {}),
      signal: deadline.signal,
    });
  } catch (e) {
    if (deadline.signal.aborted) throw deadline.failure(shown, options.timeoutMs);
    throw requestFailure(url, e, attempt.method);
  }

  const status = response.statusCode;
  const responseHeaders = response.headers;
  const body = response.body;
  const declared = Number(responseHeaders["content-length"]);
  const identity = (responseHeaders["content-encoding"] ?? "identity") === "identity";
  if (identity && Number.isFinite(declared) && declared > maxBytes) {
    discard(body);
    throw new HttpFailure("too_large", `response from ${shown} is ${declared} bytes, over the ${maxBytes}-byte cap`, { url: shown, status });
  }
  if (attempt.method === "HEAD") {
    await body.dump().catch(() => {});
    return { status, headers: responseHeaders, body: Buffer.alloc(0), url: shown };
  }

  return new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    const stream = decodedStream(body, responseHeaders);
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      deadline.signal.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => {
      finish(() => reject(deadline.failure(shown, options.timeoutMs)));
      body.destroy();
      stream.destroy();
    };
    if (deadline.signal.aborted) {
      onAbort();
      return;
    }
    deadline.signal.addEventListener("abort", onAbort, { once: true });

    const chunks: Buffer[] = [];
    let total = 0;
    stream.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        finish(() => reject(new HttpFailure("too_large", `response from ${shown} is over the ${maxBytes}-byte cap`, { url: shown, status })));
        body.destroy();
        stream.destroy();
        return;
      }
      chunks.push(chunk);
    });
    // Settle one event-loop turn after the body ends: undici hands the connection back to its pool on a
    // setImmediate after the last byte, and a caller's next request (a pacer slot just freed) should find it
    // there rather than open another connection (or CONNECT tunnel).
    stream.once("end", () => setImmediate(() => finish(() => resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks), url: shown }))));
    const onError = (e: unknown) => {
      if (deadline.signal.aborted) return finish(() => reject(deadline.failure(shown, options.timeoutMs)));
      const err = e as NodeJS.ErrnoException;
      if (err?.code === "UND_ERR_SOCKET" || err?.code === "ECONNRESET") {
        return finish(() =>
          reject(new HttpFailure("network", `connection closed while reading ${shown}`, { url: shown, status, code: "ECONNRESET", cause: e })),
        );
      }
      finish(() => reject(networkFailure(shown, e, "reading the response of")));
    };
    stream.on("error", onError);
    if (stream !== body) body.on("error", onError);
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
  // The HTTP library loads on the first request (dispatcher.ts); its load is not the upstream's time.
  await loadUndici();
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
  headers: ResponseHeaders;
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

/**
 * The one outbound GET the ChEMBL service uses, behind a small interface so tests can count and fake
 * requests. The default goes through the shared HTTP client (src/domain/net/http-client.ts, one undici
 * connection pool for the process): timeout,
 * cancellation, size cap, decoding, HTTPS_PROXY / HTTP_PROXY / NO_PROXY. Failures are mapped to three
 * typed errors here; the body of an answer is never interpreted at this level.
 */
import type { CaOption } from "../net/dispatcher.js";
import { HttpFailure, httpRequest } from "../net/http-client.js";

interface HttpResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /**
   * The body already parsed, from a source that never writes it as text (the offline dump's worker hands
   * its answers over packed, sqlite/columnar.ts; `body` then writes the text only when read), and `bytes`
   * the length of that text, estimated (the response cache weighs entries by it).
   */
  parsed?: { value: unknown; bytes: number };
}

interface FetchOptions {
  signal: AbortSignal;
  timeoutMs: number;
  headers?: Record<string, string>;
}

export type Fetcher = (url: string, options: FetchOptions) => Promise<HttpResponse>;

/** The request took longer than its timeout. */
export class FetchTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = "FetchTimeoutError";
  }
}

/** The caller cancelled (its AbortSignal fired). */
export class FetchAbortedError extends Error {
  constructor() {
    super("request aborted");
    this.name = "FetchAbortedError";
  }
}

/** Connection refused or reset, DNS, TLS or proxy failure, a body over the cap: no usable answer. */
export class FetchNetworkError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "FetchNetworkError";
  }
}

/** A ChEMBL page of 1000 activities is ~1.5 MB; anything far larger is not an answer we want. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The default fetcher: the shared client (its one kept-alive connection pool), proxies honoured, failures
 * typed. `ca` adds trusted certificates (tests with a local TLS origin).
 */
export function sharedClientFetcher(env: NodeJS.ProcessEnv = process.env, maxBodyBytes = MAX_BODY_BYTES, ca?: CaOption): Fetcher {
  return async (url, { signal, timeoutMs, headers = {} }) => {
    try {
      const res = await httpRequest(url, {
        method: "GET",
        headers,
        timeoutMs,
        signal,
        maxBytes: maxBodyBytes,
        maxRedirects: 3,
        env,
        ...(ca !== undefined ? { ca } : {}),
      });
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
      return { status: res.status, headers: out, body: res.body.toString("utf8") };
    } catch (e) {
      if (!(e instanceof HttpFailure)) throw e;
      if (e.kind === "timeout") throw new FetchTimeoutError(timeoutMs);
      if (e.kind === "aborted") throw new FetchAbortedError();
      throw new FetchNetworkError(e.kind === "too_large" ? `answer larger than ${maxBodyBytes} bytes` : "network failure", e.code ?? e.kind);
    }
  };
}

/**
 * Streamable HTTP transport (opt-in: `--transport streamable-http`), built on node:http.
 *
 * POST /mcp only. Every POST carries one JSON-RPC message, answered by a fresh Connection over the same
 * McpServer, registry and worker pool as stdio, so the answers are byte for byte the ones stdio gives.
 * Stateless in both dialects: no Mcp-Session-Id is issued or required, and there is no GET stream.
 *
 * - 2026-07-28: a body whose `_meta` carries io.modelcontextprotocol/ keys (or server/discover). The
 *   mirrored headers MCP-Protocol-Version, Mcp-Method and Mcp-Name must match the body (400, -32020).
 * - Legacy (2024-11-05 to 2025-11-25): `initialize` and bodies without that `_meta`; the version comes
 *   from the MCP-Protocol-Version header, 2025-03-26 when it is absent (as the 2025 transport says).
 *
 * A request with a progressToken whose Accept admits text/event-stream is answered with a per-request
 * SSE stream once the tool reports progress: its notifications/progress, then the response. Closing the
 * stream (or the connection of a plain JSON request) cancels the call.
 *
 * Hardening, as the reference does it: loopback Host and Origin checks (DNS rebinding), bounded request
 * line, headers and body, a timeout on receiving the request and on idle keep-alive connections (never
 * on the tool, which has its own budget), a cap on requests in flight (503 + Retry-After), and
 * Cache-Control: no-store and X-Content-Type-Options: nosniff on every response; no CORS header ever.
 *
 * Authentication (HttpOptions.auth, `--auth bearer|oauth`): every request to /mcp is judged on its head,
 * before its body is read or a slot taken; a refusal is answered 400/401/403 (503 when the issuer's keys
 * cannot be fetched) with the authenticator's WWW-Authenticate challenge, and the body is dropped. The
 * RFC 9728 protected-resource metadata (OAuth mode) is served to GET without authentication. An accepted
 * caller's owner key goes with the request to the tools (canvases belong to it), and each of its calls is
 * logged with its label or subject (never its token).
 *
 * Slow senders cannot lock others out: a request takes a concurrency slot only once its whole body is in.
 * Until then its connection is a reader: readers are capped (the oldest is answered 408 and closed when a
 * new one would exceed the cap) and have their own short deadline (408), and open connections overall are
 * capped too (a new connection past the cap closes the oldest one that is not serving a request).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  HEADER_MISMATCH,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  RpcError,
  decodeFrame,
  ID_PREFIX_BYTES,
  idOfPrefix,
  serializeResponse,
  failure,
  type JsonRpcId,
  type JsonRpcRequest,
} from "../protocol/jsonrpc.js";
import { MAX_REQUEST_BYTES } from "../contract/limits.js";
import { progressTokenOf } from "../protocol/meta.js";
import { DEFAULT_LEGACY_HTTP_VERSION, META_PROTOCOL_VERSION, httpErrorStatus, mirroredHeaders, type Era, type MirroredHeaderRule } from "../protocol/eras.js";
import { logFailedCall, type OutboundMessage, type RequestEnvelope } from "../server/connection.js";
import type { Caller, HttpAuthenticator } from "../contract/auth.js";
import type { Endpoint, MirroredParam, Transport } from "../server/transport.js";
import { MCP_PARAM_PREFIX, headerText, valueAt } from "../server/mirrored-params.js";
import { acceptAdmits, decodeMirroredValue, isAllowedOrigin, isHeaderSafe, isJsonContentType, isLoopbackAddress, isLoopbackHost } from "./http-headers.js";

const MCP_PATH = "/mcp";
export const DEFAULT_PORT = 3000;
export const DEFAULT_BIND = "127.0.0.1";
export const DEFAULT_MAX_CONCURRENCY = 16;
/** Receiving a request (headers and body) and an idle keep-alive connection are each bounded by this. */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Receiving a body once the request head is in (at most DEFAULT_REQUEST_TIMEOUT_MS in all). */
const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/** Connections whose request head is in and whose body is still arriving; past it the oldest is closed. */
export const DEFAULT_MAX_READERS = 32;
/** Open connections; past it a new connection closes the oldest one that is not serving a request. */
const DEFAULT_MAX_CONNECTIONS = 256;
const MAX_REQUEST_LINE_BYTES = 8 * 1024;
const MAX_HEADER_BYTES = 32 * 1024;
const MAX_HEADER_FIELDS = 100;
export interface HttpOptions {
  /** Address to listen on (an IP literal). Whether it is loopback decides the Host check. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Extra browser origins allowed, each already normalised (see normalizeOrigin). */
  allowedOrigins?: readonly string[];
  /** Requests in flight at once; more get 503 with Retry-After: 1. */
  maxConcurrency?: number;
  /** Time allowed to receive a whole request, and to keep an idle connection open. Tests shorten it. */
  requestTimeoutMs?: number;
  /** Time allowed to receive a body once the head is in (capped by requestTimeoutMs); then 408. */
  bodyTimeoutMs?: number;
  /** Connections still receiving a body; one more closes the oldest of them with 408. */
  maxReaders?: number;
  /** Open connections; one more closes the oldest connection not serving a request. */
  maxConnections?: number;
  /** Authentication of every request to the MCP endpoint (absent: none, `--auth none`). */
  auth?: HttpAuthenticator;
}

export interface HttpTransport extends Transport {
  /** http://host:port/mcp */
  readonly url: string;
  readonly address: AddressInfo;
  /** Requests admitted and not yet answered. */
  readonly inFlight: number;
  /** Connections open (counted against maxConnections). */
  readonly connections: number;
  /** Connections whose request head is in and whose body is still arriving (counted against maxReaders). */
  readonly readers: number;
  /** Stops accepting, lets requests in flight finish (up to graceMs), then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  411: "Length Required",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** Headers on every response, errors included. */
const ALWAYS: Record<string, string> = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

/**
 * The HTTP status of a JSON-RPC answer, by the era the Connection answered it in (absent: 2026-07-28's
 * rules), as the version table says it (protocol/eras.ts): only the codes an era maps get a 4xx; every other
 * JSON-RPC error, -32603 included, is answered 200 with its body.
 */
export function statusFor(era: Era | undefined, errorCode: number | undefined): number {
  return errorCode === undefined ? 200 : httpErrorStatus(era ?? "modern", errorCode);
}

/** A transport-level rejection: a JSON-RPC error without an id, as the spec allows for these statuses. */
function errorBody(status: number, message: string, id: JsonRpcId | null = null): string {
  return JSON.stringify(failure(id, { code: status >= 500 ? INTERNAL_ERROR : INVALID_REQUEST, message }));
}

function sseEvent(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

/** An answer given on the request head alone: a refusal, or (document) the protected-resource metadata. */
interface Rejection {
  status: number;
  message: string;
  headers?: Record<string, string>;
  /** The body will not be read (too large, or chunked): close the connection after answering. */
  close?: boolean;
  /** A JSON document answered in place of an error body (a GET of the RFC 9728 metadata). */
  document?: string;
  /** The refused message's own id (an over-large body whose first bytes name it), and its raw digits. */
  id?: JsonRpcId | null;
  rawId?: string | undefined;
}

/**
 * How long an over-large body's first bytes are waited for, to read its id, before answering without it: the id
 * comes in the first hundred bytes of a client's message, so a prompt answer loses nothing and a body withheld
 * holds the connection no longer than this.
 */
const ID_PREFIX_WAIT_MS = 500;

/** One header that may appear at most once; an error when repeated or not plain ASCII. */
function singleHeader(req: IncomingMessage, name: string): { value?: string; error?: string } {
  const values = req.headersDistinct[name];
  if (values === undefined || values.length === 0) return {};
  if (values.length > 1) return { error: `the ${name} header appears ${values.length} times` };
  const value = values[0]!;
  if (!isHeaderSafe(value)) return { error: `the ${name} header has characters outside visible ASCII` };
  return { value };
}

function headerBytes(req: IncomingMessage): number {
  let n = 0;
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) n += req.rawHeaders[i]!.length + req.rawHeaders[i + 1]!.length + 4;
  return n;
}

/** The params field Mcp-Name mirrors, per method. */
function nameSource(request: JsonRpcRequest): { field: string; value: unknown } | undefined {
  if (request.method === "tools/call" || request.method === "prompts/get") return { field: "params.name", value: request.params?.name };
  if (request.method === "resources/read") return { field: "params.uri", value: request.params?.uri };
  return undefined;
}

/** A client-chosen value quoted in an error message, clipped so the answer stays small. */
function quote(value: string): string {
  return value.length > 120 ? `${value.slice(0, 120)}...` : value;
}

/**
 * The 2026-07-28 mirrored headers, checked after `_meta` has a protocolVersion and before the version is
 * judged, as the conformance suite expects: MCP-Protocol-Version, Mcp-Method and, for tools/call,
 * resources/read and prompts/get, Mcp-Name; then, for tools/call, the Mcp-Param-* header of each parameter
 * the tool declares with x-mcp-header (`mirrored`): required when the body carries the parameter (not
 * null), equal to it once decoded (integers compared as numbers), and refused when the body has no value.
 * Missing, repeated, non-ASCII, malformed or different: -32020. A load balancer routes on these headers
 * (canvas calls by Mcp-Param-Canvas-Id), so the body the server runs must be the one the header named.
 */
function checkMirroredHeaders(
  req: IncomingMessage,
  request: JsonRpcRequest,
  bodyVersion: string,
  mirrored: (tool: string) => readonly MirroredParam[] = () => [],
): RpcError | undefined {
  const mismatch = (message: string) => new RpcError(HEADER_MISMATCH, `Header mismatch: ${message}`);
  const version = singleHeader(req, "mcp-protocol-version");
  if (version.error) return mismatch(version.error);
  if (version.value === undefined) return mismatch("the MCP-Protocol-Version header is required");
  if (version.value !== bodyVersion) {
    return mismatch(`MCP-Protocol-Version header value '${version.value}' does not match body value '${bodyVersion}' (_meta["${META_PROTOCOL_VERSION}"])`);
  }
  const method = singleHeader(req, "mcp-method");
  if (method.error) return mismatch(method.error);
  if (method.value === undefined) return mismatch("the Mcp-Method header is required");
  if (method.value !== request.method) return mismatch(`Mcp-Method header value '${method.value}' does not match body value '${request.method}'`);
  const source = nameSource(request);
  if (source && typeof source.value === "string") {
    const name = singleHeader(req, "mcp-name");
    if (name.error) return mismatch(name.error);
    if (name.value === undefined) return mismatch(`the Mcp-Name header is required for ${request.method}`);
    const decoded = decodeMirroredValue(name.value);
    if (decoded === undefined) return mismatch("the Mcp-Name header has a malformed =?base64?...?= value");
    if (decoded !== source.value) return mismatch(`Mcp-Name header value '${name.value}' does not match body value '${source.value}' (${source.field})`);
  }
  const params = paramHeaderProblem(req, request, mirrored, mirroredHeaders("modern"));
  return params === undefined ? undefined : mismatch(params);
}

/**
 * The Mcp-Param-* headers of a tools/call against its body: what is wrong, or undefined. `rule` "required": a
 * 2026-07-28 request must send the header whenever the body carries the parameter; "when-sent": a legacy client
 * sends none, but one it does send must still name the body's value (a load balancer routed the request by it).
 */
function paramHeaderProblem(
  req: IncomingMessage,
  request: JsonRpcRequest,
  mirrored: (tool: string) => readonly MirroredParam[],
  rule: MirroredHeaderRule,
): string | undefined {
  if (request.method !== "tools/call" || typeof request.params?.name !== "string") return undefined;
  for (const param of mirrored(request.params.name)) {
    const header = `${MCP_PARAM_PREFIX}${param.name}`;
    const field = `params.arguments.${param.path.join(".")}`;
    const sent = singleHeader(req, header.toLowerCase());
    if (sent.error) return sent.error.replace(header.toLowerCase(), header);
    const body = headerText(valueAt(request.params.arguments, param.path));
    if (sent.value === undefined) {
      if (body === undefined || rule === "when-sent") continue;
      return `the ${header} header is required when the body carries ${field}`;
    }
    const decoded = decodeMirroredValue(sent.value);
    if (decoded === undefined) return `the ${header} header has a malformed =?base64?...?= value`;
    if (body === undefined) return `${header} header value '${quote(sent.value)}' has no body value (${field} is absent)`;
    const same = param.type === "integer" ? decoded.trim() !== "" && Number(decoded) === Number(body) : decoded === body;
    if (!same) return `${header} header value '${quote(sent.value)}' does not match body value '${quote(body)}' (${field})`;
  }
  return undefined;
}

/**
 * A legacy request's Mcp-Param-* headers, when it sends any: each must name the body's value. Refused as an
 * invalid request (400 in every era), since the legacy dialect has no header-mismatch code.
 */
function checkLegacyParamHeaders(
  req: IncomingMessage,
  request: JsonRpcRequest,
  mirrored: (tool: string) => readonly MirroredParam[] = () => [],
): RpcError | undefined {
  const problem = paramHeaderProblem(req, request, mirrored, mirroredHeaders("legacy"));
  return problem === undefined ? undefined : new RpcError(INVALID_REQUEST, `Invalid request: header mismatch: ${problem}`);
}

export async function serveHttp(endpoint: Endpoint, options: HttpOptions = {}): Promise<HttpTransport> {
  const { logger } = endpoint;
  const bind = options.host ?? DEFAULT_BIND;
  const loopbackBind = isLoopbackAddress(bind);
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const bodyTimeoutMs = Math.min(options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS, requestTimeoutMs);
  const maxReaders = options.maxReaders ?? DEFAULT_MAX_READERS;
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const auth = options.auth;
  let inFlight = 0;

  /**
   * Every open connection, ordered by its last change of state (so the first entry that is not busy is
   * the one idle or reading the longest). Busy: serving a request whose body is in.
   */
  const connections = new Map<Socket, "idle" | "reading" | "busy">();
  /** Connections receiving a body, oldest first, each with the function that answers it 408 and closes it. */
  const readers = new Map<Socket, (message: string) => void>();

  function setState(socket: Socket, state: "idle" | "reading" | "busy"): void {
    if (!connections.has(socket)) return;
    connections.delete(socket);
    connections.set(socket, state);
  }

  /** Stops counting a connection and closes it; a reader is first answered 408. */
  function evict(socket: Socket, message: string): void {
    const expire = readers.get(socket);
    connections.delete(socket);
    if (expire) expire(message);
    else socket.destroy();
  }

  function send(res: ServerResponse, status: number, body: string | null, headers: Record<string, string> = {}): void {
    if (res.headersSent || res.destroyed) return;
    const all: Record<string, string | number> = { ...headers };
    if (body !== null) {
      all["Content-Type"] = "application/json";
      all["Content-Length"] = Buffer.byteLength(body, "utf8");
    }
    res.writeHead(status, all);
    res.end(body ?? undefined);
  }

  /** Answers a rejection (the body, when it is to be read, has been read and dropped by receive). */
  function reject(req: IncomingMessage, res: ServerResponse, r: Rejection): void {
    const headers = { ...r.headers };
    if (r.close) headers.Connection = "close";
    if (r.document !== undefined) {
      send(res, r.status, req.method === "HEAD" ? null : r.document, headers);
      return;
    }
    logger.debug(`HTTP ${r.status}: ${r.message}`, { method: req.method, path: req.url?.slice(0, 200) });
    const body = r.id === undefined ? errorBody(r.status, r.message) : serializeResponse(failure(r.id, { code: INVALID_REQUEST, message: r.message }), r.rawId);
    send(res, r.status, req.method === "HEAD" ? null : body, headers);
  }

  /**
   * The id of a body too large to read, from its first ID_PREFIX_BYTES: read as they arrive, for at most
   * ID_PREFIX_WAIT_MS, and never more (the rest is not read: the connection is closed after the answer).
   */
  function idPrefix(req: IncomingMessage): Promise<{ id: JsonRpcId | null; rawId?: string }> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        req.off("data", onData);
        req.pause();
        resolve(idOfPrefix(Buffer.concat(chunks)));
      };
      // The prefix is scanned again only once it has doubled, so a body sent in many small packets costs linear time.
      let nextScan = 256;
      const onData = (chunk: Buffer) => {
        if (size < ID_PREFIX_BYTES) chunks.push(chunk.subarray(0, ID_PREFIX_BYTES - size));
        size += chunk.length;
        // Answered as soon as the id is in (or the prefix is full): the rest of the body is never read.
        if (size >= ID_PREFIX_BYTES) return finish();
        if (size < nextScan) return;
        nextScan = size * 2;
        if (idOfPrefix(Buffer.concat(chunks)).id !== null) finish();
      };
      const timer = setTimeout(finish, ID_PREFIX_WAIT_MS);
      req.on("data", onData);
      req.once("end", finish);
      req.once("close", finish);
      req.once("error", finish);
    });
  }

  /** Checks made on the request head alone, in order; the first failure answers. */
  function precheck(req: IncomingMessage): Rejection | undefined {
    const requestLine = (req.method?.length ?? 0) + (req.url?.length ?? 0) + 10;
    if (requestLine > MAX_REQUEST_LINE_BYTES) return { status: 431, message: `The request line exceeds ${MAX_REQUEST_LINE_BYTES} bytes`, close: true };
    if (req.rawHeaders.length / 2 > MAX_HEADER_FIELDS)
      return { status: 431, message: `The request has more than ${MAX_HEADER_FIELDS} header fields`, close: true };
    if (headerBytes(req) > MAX_HEADER_BYTES) return { status: 431, message: `The request headers exceed ${MAX_HEADER_BYTES} bytes`, close: true };

    const hosts = req.headersDistinct.host;
    if (!hosts || hosts.length !== 1) return { status: 400, message: "Exactly one Host header is required" };
    if (loopbackBind && !isLoopbackHost(hosts[0]!)) {
      return { status: 403, message: "Forbidden: the Host header must name a loopback host (this server is bound to loopback)" };
    }
    const origins = req.headersDistinct.origin;
    if (origins && (origins.length !== 1 || !isAllowedOrigin(origins[0]!, allowedOrigins))) {
      return { status: 403, message: "Forbidden: this Origin is not allowed (only loopback origins and those given with --allowed-origin)" };
    }

    const url = req.url ?? "";
    const path = url.includes("?") ? url.slice(0, url.indexOf("?")) : url;
    const metadata = auth?.wellKnown(path);
    if (metadata !== undefined) {
      if (req.method !== "GET" && req.method !== "HEAD")
        return { status: 405, message: "Method not allowed: this metadata is read with GET", headers: { Allow: "GET, HEAD" } };
      return { status: 200, message: "protected-resource metadata", document: JSON.stringify(metadata) };
    }
    if (path !== MCP_PATH) return { status: 404, message: `Not found: the MCP endpoint is POST ${MCP_PATH}` };
    if (req.method !== "POST") return { status: 405, message: `Method not allowed: the MCP endpoint accepts POST only`, headers: { Allow: "POST" } };

    if (!acceptAdmits(req.headers.accept, "application/json")) return { status: 406, message: "Not acceptable: the Accept header must admit application/json" };
    const contentType = singleHeader(req, "content-type");
    if (contentType.error || !isJsonContentType(contentType.value)) {
      return { status: 415, message: "Unsupported media type: send the JSON-RPC message as Content-Type: application/json" };
    }
    if (req.headers["transfer-encoding"] !== undefined) {
      return { status: 411, message: "Length required: chunked bodies are not read; send a Content-Length", close: true };
    }
    const length = req.headers["content-length"];
    if (length === undefined) return { status: 411, message: "Length required: send a Content-Length", close: true };
    if (Number(length) > MAX_REQUEST_BYTES) return { status: 413, message: `Content too large: the body exceeds ${MAX_REQUEST_BYTES} bytes`, close: true };
    return undefined;
  }

  /**
   * Receives the body (kept when `keep`, else dropped): the connection is a reader until it is in, closed
   * with 408 past bodyTimeoutMs or when newer readers need the room. Null when the client went away or
   * the connection was answered 408.
   */
  function receive(req: IncomingMessage, res: ServerResponse, keep: boolean): Promise<Buffer | null> {
    const socket = req.socket;
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const finish = (body: Buffer | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (readers.get(socket) === expire) readers.delete(socket);
        if (body !== null) setState(socket, "busy");
        resolve(body);
      };
      const expire = (message: string) => {
        if (settled) return;
        finish(null);
        connections.delete(socket);
        logger.debug(`HTTP 408: ${message}`, { method: req.method, path: req.url?.slice(0, 200) });
        send(res, 408, errorBody(408, message), { Connection: "close" });
        // The answer is small; a client that reads nothing does not keep the socket past a second.
        setTimeout(() => socket.destroy(), 1_000).unref();
      };
      const timer = setTimeout(() => expire(`Request timeout: the request body was not received within ${bodyTimeoutMs} ms`), bodyTimeoutMs);
      readers.set(socket, expire);
      setState(socket, "reading");
      for (const other of readers.keys()) {
        if (readers.size <= maxReaders) break;
        if (other !== socket) evict(other, `Request timeout: ${maxReaders} connections were still sending their bodies and this one had waited the longest`);
      }
      req.on("data", (chunk: Buffer) => {
        size += chunk.length;
        // Content-Length was checked; the parser never delivers more than it announced.
        if (keep && size <= MAX_REQUEST_BYTES) chunks.push(chunk);
      });
      req.once("end", () => finish(keep ? Buffer.concat(chunks, Math.min(size, MAX_REQUEST_BYTES + 1)) : Buffer.alloc(0)));
      req.once("close", () => finish(null));
      req.once("error", () => finish(null));
    });
  }

  /** The line each authenticated call leaves in the log: who (label or subject, never the token), what, how it ended. */
  function logCall(
    caller: Caller | undefined,
    request: { method: string; params?: Record<string, unknown> | undefined },
    status: number | string,
    started: number,
  ): void {
    if (!caller) return;
    const tool = request.method === "tools/call" && typeof request.params?.name === "string" ? request.params.name.slice(0, 200) : undefined;
    logger.info("authenticated call", { caller: caller.label, method: request.method.slice(0, 200), tool, status, ms: Date.now() - started });
  }

  async function handleRequest(req: IncomingMessage, res: ServerResponse, request: JsonRpcRequest, caller: Caller | undefined): Promise<void> {
    const started = Date.now();
    const connection = endpoint.open();
    // What the era decision needs from HTTP: the version header, the 2025 transport's default version, and
    // the mirrored-header checks a 2026-07-28 request gets. The Connection decides; HTTP maps the answer.
    const envelope: RequestEnvelope = {
      versionHint: singleHeader(req, "mcp-protocol-version"),
      defaultLegacyVersion: DEFAULT_LEGACY_HTTP_VERSION,
      checkModern: (modern, bodyVersion) => checkMirroredHeaders(req, modern, bodyVersion, (tool) => endpoint.mirroredParams(tool)),
      checkLegacy: (legacy) => checkLegacyParamHeaders(req, legacy, (tool) => endpoint.mirroredParams(tool)),
      ...(caller ? { owner: caller.owner } : {}),
    };
    const streamable = progressTokenOf(request.params) !== undefined && acceptAdmits(req.headers.accept, "text/event-stream");
    let streaming = false;
    let answered = false;
    const notify = (message: OutboundMessage) => {
      if (!streamable || answered || res.destroyed) return;
      if (!streaming) {
        streaming = true;
        res.writeHead(200, { "Content-Type": "text/event-stream", "X-Accel-Buffering": "no" });
      }
      res.write(sseEvent(JSON.stringify(message)));
    };
    // A client that closes the stream (or the connection) before the answer cancels the call.
    res.once("close", () => {
      if (!answered && connection.cancel(request.id)) logger.debug("HTTP client went away: request cancelled", { method: request.method });
    });
    const answer = await connection.handleDecoded({ kind: "request", message: request }, notify, envelope);
    answered = true;
    if (answer === null) {
      logCall(caller, request, "cancelled", started);
      if (!res.writableEnded) res.destroy();
      return;
    }
    if (streaming) {
      res.end(sseEvent(answer.line));
    } else {
      send(res, statusFor(answer.era, answer.errorCode), answer.line);
    }
    logCall(caller, request, streaming ? 200 : statusFor(answer.era, answer.errorCode), started);
    logger.debug(`HTTP ${streaming ? "200 (SSE)" : statusFor(answer.era, answer.errorCode)} ${request.method}`, { era: answer.era, ms: Date.now() - started });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const socket = req.socket;
    res.once("close", () => {
      if (connections.get(socket) === "busy") setState(socket, "idle");
    });
    let early = precheck(req);
    // Refused on its head alone and closed, the body unread; an over-large body's first bytes are read for its id.
    if (early?.close && early.status === 413) return reject(req, res, { ...early, ...(await idPrefix(req)) });
    if (early?.close) return reject(req, res, early);
    let caller: Caller | undefined;
    if (early === undefined && auth) {
      // Judged on the head: a refused caller's body is dropped unread, and it never takes a slot.
      const verdict = await auth.authenticate(req.headersDistinct.authorization);
      if (verdict.ok) caller = verdict.caller;
      else {
        const headers: Record<string, string> = verdict.challenge ? { "WWW-Authenticate": verdict.challenge } : {};
        if (verdict.status === 503) headers["Retry-After"] = "5";
        early = { status: verdict.status, message: verdict.message, headers };
        logger[verdict.status === 503 ? "warn" : "info"](`HTTP ${verdict.status}: ${verdict.message}`, { auth: auth.mode });
      }
    }
    // Any other answer waits for the body (read, or dropped for a refusal), so the client sees it; only
    // then does a request take a slot, so a body withheld holds a reader, never a slot.
    const body = await receive(req, res, early === undefined);
    if (body === null) return; // the client went away, or the connection was answered 408
    if (early) return reject(req, res, early);
    if (inFlight >= maxConcurrency) {
      return reject(req, res, {
        status: 503,
        message: `Server busy: ${maxConcurrency} requests are in flight; retry in a second`,
        headers: { "Retry-After": "1" },
      });
    }
    inFlight++;
    let released = false;
    res.once("close", () => {
      if (!released) {
        released = true;
        inFlight--;
      }
    });

    const decoded = decodeFrame(body);
    switch (decoded.kind) {
      case "error":
        logFailedCall(logger, {
          id: decoded.response.id,
          code: decoded.response.error.code,
          rpcCode: decoded.response.error.code,
          message: decoded.response.error.message,
        });
        send(res, 400, serializeResponse(decoded.response, decoded.rawId));
        return;
      case "response":
        send(res, 400, errorBody(400, "Invalid request: this server sends no requests, so it accepts no JSON-RPC responses"));
        return;
      case "notification":
        await endpoint.open().handleDecoded(decoded);
        send(res, 202, null);
        logCall(caller, decoded.message, 202, Date.now());
        return;
      case "request":
        return handleRequest(req, res, decoded.message, caller);
    }
  }

  const httpServer: Server = createServer(
    {
      // The parser's own bound on request line plus headers; the finer limits are checked in precheck.
      maxHeaderSize: MAX_REQUEST_LINE_BYTES + MAX_HEADER_BYTES + 1024,
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      keepAliveTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(requestTimeoutMs / 4))),
      // A missing Host is answered here (400) with the usual headers, not by node's bare 400.
      requireHostHeader: false,
    },
    (req, res) => {
      for (const [k, v] of Object.entries(ALWAYS)) res.setHeader(k, v);
      handle(req, res).catch((e: unknown) => {
        logger.error("HTTP request failed unexpectedly", { detail: (e as Error)?.stack ?? String(e) });
        if (!res.headersSent) send(res, 500, errorBody(500, "Internal error"));
        else res.destroy();
      });
    },
  );
  // One more than the limit, so that a request over it can be seen (node drops fields past this count).
  httpServer.maxHeadersCount = MAX_HEADER_FIELDS + 1;

  httpServer.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    const current = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!socket.writable || current?.headersSent || err.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const message =
      status === 431
        ? `Request header fields too large (request line at most ${MAX_REQUEST_LINE_BYTES} bytes, headers at most ${MAX_HEADER_BYTES} bytes)`
        : status === 408
          ? `Request timeout: the request was not received within ${requestTimeoutMs} ms`
          : `Bad request: malformed HTTP (${err.code ?? "parse error"})`;
    const body = errorBody(status, message);
    const head = [
      `HTTP/1.1 ${status} ${REASONS[status]}`,
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...Object.entries(ALWAYS).map(([k, v]) => `${k}: ${v}`),
      "Connection: close",
    ];
    socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
  });

  httpServer.on("connection", (socket: Socket) => {
    connections.set(socket, "idle");
    socket.once("close", () => {
      connections.delete(socket);
      readers.delete(socket);
    });
    if (connections.size <= maxConnections) return;
    // Past the cap the oldest connection that is not serving a request (idle, or still sending) makes
    // room: refusing the new one instead would let hundreds of silent sockets lock every client out.
    for (const [other, state] of connections) {
      if (other !== socket && state !== "busy") {
        logger.debug(`HTTP connection closed: ${maxConnections} connections are open and it was ${state} the longest`);
        evict(other, `Request timeout: ${maxConnections} connections were open and this one had waited the longest`);
        return;
      }
    }
    socket.destroy(); // every other connection is serving a request
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen({ host: bind, port: options.port ?? DEFAULT_PORT }, () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  httpServer.on("error", (e) => logger.error("HTTP server error", { detail: e.message }));

  let markDone: () => void = () => {};
  const done = new Promise<void>((resolve) => (markDone = resolve));
  httpServer.once("close", () => markDone());
  const address = httpServer.address() as AddressInfo;
  const hostPart = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostPart}:${address.port}${MCP_PATH}`,
    address,
    done,
    get inFlight() {
      return inFlight;
    },
    get connections() {
      return connections.size;
    },
    get readers() {
      return readers.size;
    },
    async close(graceMs = 10_000) {
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

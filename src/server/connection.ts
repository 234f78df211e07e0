/**
 * One client connection: decodes frames, pins the protocol era, runs requests concurrently, honours
 * notifications/cancelled, and produces exactly one response per request (none for a cancelled one).
 *
 * Era pinning: the first request that passes the pre-dispatch checks and names a method the server
 * serves pins legacy or modern; a later request of the other dialect gets -32600 with {pinnedEra,
 * requestEra}. A refused request (an unsupported version, a bad `_meta`, an unknown method) does not
 * pin, so a dual-era client whose server/discover probe fails can still fall back to initialize. A legacy
 * connection is initialized once: a second initialize is -32600.
 */
import {
  INTERNAL_ERROR,
  INVALID_REQUEST,
  RpcError,
  decodeFrame,
  serializeResponse,
  failure,
  isJsonObject,
  success,
  type Decoded,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../protocol/jsonrpc.js";
import { clipText, MAX_RESPONSE_BYTES } from "../contract/limits.js";
import { classifyEra, metaOf, parseClientMeta, progressTokenOf, type VersionHint } from "../protocol/meta.js";
import { declaresApps } from "../protocol/extensions.js";
import { META_PROTOCOL_VERSION, REFERENCE_VERSION, type Era, type LegacyVersion } from "../protocol/eras.js";
import { CancelledError } from "../contract/errors.js";
import type { McpServer } from "./server.js";
import { toolErrorOf } from "./shape.js";
import type { Logger } from "../logger.js";

export type OutboundMessage = JsonRpcResponse | { jsonrpc: "2.0"; method: string; params: JsonObject };

export interface ConnectionOptions {
  /**
   * The legacy version this connection speaks before (or without) an initialize: the reference's
   * 2024-11-05 unless given. A stateless HTTP request names its own in its envelope (RequestEnvelope).
   */
  legacyVersion?: LegacyVersion;
  logger: Logger;
  /**
   * Log one line per failed request (a JSON-RPC error or a tool result with isError): its id, method, tool
   * and code. Default true; the one-shot `call` command prints the error itself and turns it off.
   */
  logFailures?: boolean;
}

/** Tool error codes that point at the server or an upstream (time, capacity, availability), not the caller. */
const SERVER_SIDE_CODES: ReadonlySet<string> = new Set(["TIMEOUT", "BUSY", "UPSTREAM_UNAVAILABLE", "RATE_LIMITED", "DEADLINE_EXCEEDED", "QUERY_TIMEOUT"]);

export interface FailedCall {
  id: JsonRpcId | null;
  method?: string | undefined;
  /** params.name of a tools/call. */
  tool?: string | undefined;
  /** The domain code (INVALID_SMILES, TIMEOUT, ...) when there is one, else the JSON-RPC error code. */
  code: string | number;
  /** The JSON-RPC error code when the answer is a JSON-RPC error (absent for a result with isError). */
  rpcCode?: number | undefined;
  message: string;
  ms?: number | undefined;
}

/**
 * The operator's line for one failed request: level error for an internal error, warn for a server-side or
 * upstream code (TIMEOUT, BUSY, UPSTREAM_UNAVAILABLE, ...), info for the rest (the caller's mistakes).
 * Client-chosen strings (id, tool name) are clipped so one line stays small.
 */
export function logFailedCall(logger: Logger, call: FailedCall): void {
  const level = typeof call.code === "number" ? (call.code === INTERNAL_ERROR ? "error" : "info") : SERVER_SIDE_CODES.has(call.code) ? "warn" : "info";
  logger[level]("call failed", {
    id: typeof call.id === "string" ? clipText(call.id, 200) : call.id,
    method: call.method === undefined ? undefined : clipText(call.method, 200),
    tool: call.tool === undefined ? undefined : clipText(call.tool, 200),
    code: call.code,
    rpc_code: call.rpcCode,
    ms: call.ms,
    message: clipText(call.message, 500),
  });
}

/**
 * What a transport carries beside a request's body, for the era decision (protocol/meta.ts classifyEra)
 * and the checks that only a 2026-07-28 request gets. stdio has none of it.
 */
export interface RequestEnvelope {
  /** The protocol version the transport carries (HTTP's MCP-Protocol-Version header). */
  versionHint?: VersionHint;
  /** The legacy version of a request whose hint is absent (HTTP: 2025-03-26, the first with that transport). */
  defaultLegacyVersion?: LegacyVersion;
  /**
   * Checks of a modern request that has a protocolVersion in its `_meta` (HTTP's mirrored headers), made
   * after the era decision and before `_meta` is judged, as the conformance suite expects.
   */
  checkModern?: (request: JsonRpcRequest, bodyVersion: string) => RpcError | undefined;
  /** Checks of a legacy request (HTTP: Mcp-Param-* headers it sends anyway must match the body). */
  checkLegacy?: (request: JsonRpcRequest) => RpcError | undefined;
  /** The caller the transport authenticated (token label or subject), handed to the tools as ServiceContext.owner. */
  owner?: string;
}

/**
 * One serialized response, its JSON-RPC error code when it is an error, and the era whose rules it follows
 * (the request's, as classifyEra decided it; HTTP maps code and era to a status and never classifies).
 */
export interface Answer {
  line: string;
  errorCode?: number;
  era?: Era;
}

interface InFlight {
  controller: AbortController;
  cancelled: boolean;
}

function idKey(id: JsonRpcId): string {
  return `${typeof id}:${String(id)}`;
}

export class Connection {
  private pinnedEra: Era | undefined;
  /** Until initialize says otherwise, a legacy connection speaks the reference's 2024-11-05. */
  private legacyVersion: LegacyVersion;
  /** The legacy client declared the MCP Apps extension in its initialize. */
  private legacyApps = false;
  private readonly inFlight = new Map<string, InFlight>();
  /** A legacy initialize has been accepted on this connection (a second one is refused). */
  private initialized = false;

  constructor(
    private readonly server: McpServer,
    private readonly options: ConnectionOptions,
  ) {
    this.legacyVersion = options.legacyVersion ?? REFERENCE_VERSION;
  }

  /**
   * Handles one frame. Resolves to the serialized response line (without newline), or null when nothing
   * must be sent (a notification, a client response, a cancelled request). `notify` carries progress.
   */
  async handleFrame(bytes: Uint8Array, notify: (message: OutboundMessage) => void = () => {}): Promise<string | null> {
    const answer = await this.handleDecoded(decodeFrame(bytes), notify);
    return answer?.line ?? null;
  }

  /** Handles a frame the transport has already decoded (HTTP inspects it first); the answer carries its error code and era. */
  async handleDecoded(decoded: Decoded, notify: (message: OutboundMessage) => void = () => {}, envelope: RequestEnvelope = {}): Promise<Answer | null> {
    switch (decoded.kind) {
      case "error": {
        const { id, error } = decoded.response;
        if (this.options.logFailures !== false) logFailedCall(this.options.logger, { id, code: error.code, rpcCode: error.code, message: error.message });
        return answerOf(decoded.response, undefined, decoded.rawId);
      }
      case "response":
        this.options.logger.debug("dropped a JSON-RPC response from the client (this server sends no requests)");
        return null;
      case "notification":
        this.onNotification(decoded.message.method, decoded.message.params);
        return null;
      case "request":
        return this.onRequest(decoded.message, notify, envelope);
    }
  }

  /**
   * Cancels a request in flight (notifications/cancelled on stdio; a closed response stream on HTTP):
   * its work is aborted and it gets no answer. Returns false when no such request is in flight.
   */
  cancel(id: JsonRpcId): boolean {
    const entry = this.inFlight.get(idKey(id));
    if (!entry || entry.cancelled) return false;
    entry.cancelled = true;
    entry.controller.abort();
    return true;
  }

  private onNotification(method: string, params: JsonObject | undefined): void {
    if (method === "notifications/cancelled") {
      const id = params?.requestId;
      if (typeof id === "string" || typeof id === "number") this.cancel(id);
    }
    // notifications/initialized and anything else: nothing to do; unknown notifications are ignored.
  }

  private async onRequest(request: JsonRpcRequest, notify: (message: OutboundMessage) => void, envelope: RequestEnvelope): Promise<Answer | null> {
    const key = idKey(request.id);
    if (this.inFlight.has(key)) {
      return answerOf(
        failure(request.id, { code: INVALID_REQUEST, message: `Invalid request: id ${JSON.stringify(request.id)} is already in flight` }),
        undefined,
        request.rawId,
      );
    }
    const entry: InFlight = { controller: new AbortController(), cancelled: false };
    this.inFlight.set(key, entry);
    const started = Date.now();
    const failed = (code: string | number, message: string, rpcCode?: number) => {
      if (this.options.logFailures === false) return;
      const tool = request.method === "tools/call" && typeof request.params?.name === "string" ? request.params.name : undefined;
      logFailedCall(this.options.logger, { id: request.id, method: request.method, tool, code, rpcCode, message, ms: Date.now() - started });
    };
    // The era the answer follows: a refused version hint follows 2026-07-28's rules (its codes exist only there).
    const decided: { era?: Era } = {};
    try {
      const active = () => this.inFlight.get(key) === entry && !entry.cancelled;
      const result = await this.dispatch(request, entry.controller.signal, active, notify, envelope, decided);
      if (entry.cancelled) return null;
      const answer = answerOf(success(request.id, result), decided.era, request.rawId);
      const toolError = toolErrorOf(result);
      if (toolError) failed(toolError.code, toolError.message);
      else if (answer.errorCode !== undefined) failed(answer.errorCode, "the response exceeds the maximum size", answer.errorCode);
      return answer;
    } catch (e) {
      if (entry.cancelled || e instanceof CancelledError) return null;
      if (e instanceof RpcError) {
        // The domain code behind it: a 2024-11-05 tool failure (-32000), or a resources/read failure (data.code).
        const domainCode = toolErrorOf(e)?.code ?? (isJsonObject(e.data) && typeof e.data.code === "string" ? e.data.code : undefined);
        failed(domainCode ?? e.code, e.message, e.code);
        return answerOf(failure(request.id, e.toObject()), decided.era, request.rawId);
      }
      this.options.logger.error("unexpected failure while handling a request", { method: request.method, detail: (e as Error)?.stack ?? String(e) });
      failed(INTERNAL_ERROR, "Internal error", INTERNAL_ERROR);
      return answerOf(failure(request.id, { code: INTERNAL_ERROR, message: "Internal error" }), decided.era, request.rawId);
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async dispatch(
    request: JsonRpcRequest,
    signal: AbortSignal,
    active: () => boolean,
    notify: (message: OutboundMessage) => void,
    envelope: RequestEnvelope,
    decided: { era?: Era },
  ): Promise<JsonObject> {
    const decision = classifyEra(request.method, request.params, envelope.versionHint, envelope.defaultLegacyVersion);
    if (decision instanceof RpcError) {
      decided.era = "modern";
      throw decision;
    }
    const era = decision.era;
    decided.era = era;
    if (this.pinnedEra && this.pinnedEra !== era) {
      throw new RpcError(INVALID_REQUEST, `Invalid request: this connection speaks the ${this.pinnedEra} protocol era; the request is ${era}`, {
        pinnedEra: this.pinnedEra,
        requestEra: era,
      });
    }
    const token = progressTokenOf(request.params);
    let last = -Infinity;
    const progress =
      token === undefined
        ? undefined
        : (value: number, total?: number, message?: string) => {
            // Progress must increase and stop once the request is answered or cancelled.
            if (value <= last || !active()) return;
            last = value;
            const params: JsonObject = { progressToken: token, progress: value };
            if (total !== undefined) params.total = total;
            if (message !== undefined) params.message = message;
            notify({ jsonrpc: "2.0", method: "notifications/progress", params });
          };
    if (era === "modern") {
      // Throws before the pin: a refused probe leaves the connection open to either era.
      const bodyVersion = metaOf(request.params)?.[META_PROTOCOL_VERSION];
      // Without a protocolVersion in _meta, parseClientMeta answers -32602 first, as the conformance suite expects.
      if (envelope.checkModern && typeof bodyVersion === "string" && bodyVersion.length > 0) {
        const refused = envelope.checkModern(request, bodyVersion);
        if (refused) throw refused;
      }
      const meta = parseClientMeta(request.params);
      // A method this server does not serve (-32601 follows) is refused, so it pins nothing either.
      if (this.server.serves("modern", request.method)) this.pinnedEra ??= "modern";
      return this.server.handleModern(request, {
        signal,
        progress,
        clientCapabilities: meta.clientCapabilities,
        owner: envelope.owner,
        apps: declaresApps(meta.clientCapabilities),
      });
    }
    const refused = envelope.checkLegacy?.(request);
    if (refused) throw refused;
    if (request.method === "initialize" && this.initialized) {
      throw new RpcError(INVALID_REQUEST, "Invalid request: this connection is already initialized; initialize is sent once per connection");
    }
    if (this.server.serves("legacy", request.method)) this.pinnedEra ??= "legacy";
    if (request.method === "initialize") {
      this.initialized = true;
      // What the client declared in initialize holds for the connection's later requests (MCP Apps among them).
      const declared = request.params?.capabilities;
      this.legacyApps = declaresApps(isJsonObject(declared) ? declared : undefined);
    }
    const { result, negotiated } = await this.server.handleLegacy(request, decision.legacyVersion ?? this.legacyVersion, {
      signal,
      progress,
      owner: envelope.owner,
      apps: this.legacyApps,
    });
    if (negotiated) this.legacyVersion = negotiated;
    return result;
  }
}

/** One response as one line; a response over the limit becomes -32603 instead. */
function answerOf(response: JsonRpcResponse, era?: Era, rawId?: string): Answer {
  const line = serializeResponse(response, rawId);
  const withEra = (answer: Answer): Answer => (era === undefined ? answer : { ...answer, era });
  if (Buffer.byteLength(line, "utf8") > MAX_RESPONSE_BYTES) {
    const tooLarge = failure(response.id, {
      code: INTERNAL_ERROR,
      message: `Internal error: response exceeds the maximum size of ${MAX_RESPONSE_BYTES} bytes`,
    });
    return withEra({ line: serializeResponse(tooLarge, rawId), errorCode: INTERNAL_ERROR });
  }
  return withEra("error" in response ? { line, errorCode: response.error.code } : { line });
}

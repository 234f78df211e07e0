/**
 * One client connection: decodes frames, pins the protocol era, runs requests concurrently, honours
 * notifications/cancelled, and produces exactly one response per request (none for a cancelled one).
 *
 * Era pinning: the first request that passes the pre-dispatch checks pins legacy or modern; a later
 * request of the other dialect gets -32600 with {pinnedEra, requestEra}. A request refused before
 * dispatch (an unsupported version, a bad `_meta`) does not pin, so a dual-era client whose
 * server/discover probe fails can still fall back to initialize.
 */
import {
  INTERNAL_ERROR,
  INVALID_REQUEST,
  RpcError,
  decodeFrame,
  failure,
  success,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../protocol/jsonrpc.js";
import { MAX_RESPONSE_BYTES } from "../protocol/limits.js";
import { dialectOf, parseClientMeta, progressTokenOf, type Era, type LegacyVersion } from "../protocol/meta.js";
import { CancelledError } from "./pool.js";
import type { McpServer } from "./server.js";
import type { Logger } from "../logger.js";

export type OutboundMessage = JsonRpcResponse | { jsonrpc: "2.0"; method: string; params: JsonObject };

export interface ConnectionOptions {
  /** HTTP serves 2026-07-28 only: every request is checked as a modern one. */
  modernOnly?: boolean;
  logger: Logger;
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
  private legacyVersion: LegacyVersion = "2024-11-05";
  private readonly inFlight = new Map<string, InFlight>();
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly server: McpServer,
    private readonly options: ConnectionOptions,
  ) {}

  get era(): Era | undefined {
    return this.pinnedEra;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * Handles one frame. Resolves to the serialized response line (without newline), or null when nothing
   * must be sent (a notification, a client response, a cancelled request). `notify` carries progress.
   */
  async handleFrame(bytes: Uint8Array, notify: (message: OutboundMessage) => void = () => {}): Promise<string | null> {
    const decoded = decodeFrame(bytes);
    switch (decoded.kind) {
      case "error":
        return serialize(decoded.response);
      case "response":
        this.options.logger.debug("dropped a JSON-RPC response from the client (this server sends no requests)");
        return null;
      case "notification":
        this.onNotification(decoded.message.method, decoded.message.params);
        return null;
      case "request": {
        const work = this.onRequest(decoded.message, notify);
        this.pending.add(work);
        try {
          return await work;
        } finally {
          this.pending.delete(work);
        }
      }
    }
  }

  /** Resolves when every request in flight has been answered (used at stdin EOF). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private onNotification(method: string, params: JsonObject | undefined): void {
    if (method === "notifications/cancelled") {
      const id = params?.requestId;
      if (typeof id === "string" || typeof id === "number") {
        const entry = this.inFlight.get(idKey(id));
        if (entry && !entry.cancelled) {
          entry.cancelled = true;
          entry.controller.abort();
        }
      }
    }
    // notifications/initialized and anything else: nothing to do; unknown notifications are ignored.
  }

  private async onRequest(request: JsonRpcRequest, notify: (message: OutboundMessage) => void): Promise<string | null> {
    const key = idKey(request.id);
    if (this.inFlight.has(key)) {
      return serialize(failure(request.id, { code: INVALID_REQUEST, message: `Invalid request: id ${JSON.stringify(request.id)} is already in flight` }));
    }
    const entry: InFlight = { controller: new AbortController(), cancelled: false };
    this.inFlight.set(key, entry);
    try {
      const active = () => this.inFlight.get(key) === entry && !entry.cancelled;
      const result = await this.dispatch(request, entry.controller.signal, active, notify);
      if (entry.cancelled) return null;
      return serialize(success(request.id, result));
    } catch (e) {
      if (entry.cancelled || e instanceof CancelledError) return null;
      if (e instanceof RpcError) return serialize(failure(request.id, e.toObject()));
      this.options.logger.error("unexpected failure while handling a request", { method: request.method, detail: (e as Error)?.stack ?? String(e) });
      return serialize(failure(request.id, { code: INTERNAL_ERROR, message: "Internal error" }));
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async dispatch(
    request: JsonRpcRequest,
    signal: AbortSignal,
    active: () => boolean,
    notify: (message: OutboundMessage) => void,
  ): Promise<JsonObject> {
    const era: Era = this.options.modernOnly ? "modern" : dialectOf(request.method, request.params);
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
      parseClientMeta(request.params); // throws before the pin: a refused probe leaves the connection open to either era
      this.pinnedEra ??= "modern";
      return this.server.handleModern(request, { signal, progress });
    }
    this.pinnedEra ??= "legacy";
    const { result, negotiated } = await this.server.handleLegacy(request, this.legacyVersion, { signal, progress });
    if (negotiated) this.legacyVersion = negotiated;
    return result;
  }
}

/** One response as one line; a response over the limit becomes -32603 instead. */
export function serialize(response: JsonRpcResponse): string {
  const line = JSON.stringify(response);
  if (Buffer.byteLength(line, "utf8") > MAX_RESPONSE_BYTES) {
    return JSON.stringify(failure(response.id, { code: INTERNAL_ERROR, message: `Internal error: response exceeds the maximum size of ${MAX_RESPONSE_BYTES} bytes` }));
  }
  return line;
}

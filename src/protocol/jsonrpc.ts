/**
 * JSON-RPC 2.0 codec: decoding one frame under the input limits, and building responses.
 * Knows nothing about MCP methods or eras.
 */
import { MAX_ARRAY_LENGTH, MAX_JSON_DEPTH, MAX_REQUEST_BYTES, MAX_STRING_BYTES } from "../contract/limits.js";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** The reference's implementation-defined code for every legacy 2024-11-05 tool failure. */
export const LEGACY_TOOL_ERROR = -32000;
/** MCP 2026-07-28 reserved codes. */
export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export type JsonRpcId = string | number;
export type JsonObject = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: JsonObject;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: JsonObject;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: JsonObject;
}

export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

/** An error raised while handling a request that must become a JSON-RPC error response. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
  toObject(): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

export function success(id: JsonRpcId, result: JsonObject): JsonRpcSuccess {
  return { jsonrpc: "2.0", id, result };
}

export function failure(id: JsonRpcId | null, error: JsonRpcErrorObject): JsonRpcFailure {
  return { jsonrpc: "2.0", id, error };
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isValidId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

export type Decoded =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response" } // a response from the client: this server sends no requests, so it is dropped
  | { kind: "error"; response: JsonRpcFailure };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Nesting depth of a JSON text, counted on the raw characters before parsing, so a hostile
 * "[[[[..." line is refused without building it. Brackets inside strings do not count.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 || c === 123) {
      if (++depth > maxDepth) return true;
    } else if (c === 93 || c === 125) {
      depth--;
    }
  }
  return false;
}

/** Finds the first array or string over the limits, walking iteratively. Returns a description or null. */
export function findSizeViolation(value: unknown): string | null {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      // A JS string of n UTF-16 units encodes to at most 3n bytes; measure exactly only near the limit.
      if (v.length * 3 > MAX_STRING_BYTES && Buffer.byteLength(v, "utf8") > MAX_STRING_BYTES) {
        return `string longer than ${MAX_STRING_BYTES} bytes`;
      }
    } else if (Array.isArray(v)) {
      if (v.length > MAX_ARRAY_LENGTH) return `array longer than ${MAX_ARRAY_LENGTH} items`;
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        stack.push(k);
        stack.push(item);
      }
    }
  }
  return null;
}

function idOf(value: unknown): JsonRpcId | null {
  return isJsonObject(value) && isValidId(value.id) ? value.id : null;
}

/** Decodes one frame (a stdio line or an HTTP body) into a request, a notification or an error response. */
export function decodeFrame(bytes: Uint8Array): Decoded {
  if (bytes.length > MAX_REQUEST_BYTES) {
    return { kind: "error", response: failure(null, { code: INVALID_REQUEST, message: `Request exceeds the maximum size of ${MAX_REQUEST_BYTES} bytes` }) };
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { kind: "error", response: failure(null, { code: PARSE_ERROR, message: "Parse error: request is not valid UTF-8" }) };
  }
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    return { kind: "error", response: failure(null, { code: INVALID_REQUEST, message: `Request nesting exceeds the maximum depth of ${MAX_JSON_DEPTH}` }) };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: "error", response: failure(null, { code: PARSE_ERROR, message: `Parse error: ${(e as Error).message}` }) };
  }
  const violation = findSizeViolation(value);
  if (violation) {
    return { kind: "error", response: failure(idOf(value), { code: INVALID_REQUEST, message: `Request exceeds a limit: ${violation}` }) };
  }
  return classify(value);
}

/** Checks the JSON-RPC 2.0 envelope of a parsed message. */
export function classify(value: unknown): Decoded {
  if (Array.isArray(value)) {
    return {
      kind: "error",
      response: failure(null, { code: INVALID_REQUEST, message: "Invalid request: batches are not supported; send one JSON-RPC object per message" }),
    };
  }
  if (!isJsonObject(value)) {
    return { kind: "error", response: failure(null, { code: INVALID_REQUEST, message: "Invalid request: expected a JSON-RPC object" }) };
  }
  const hasId = Object.prototype.hasOwnProperty.call(value, "id");
  const id = isValidId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") {
    return { kind: "error", response: failure(id, { code: INVALID_REQUEST, message: 'Invalid request: "jsonrpc" must be "2.0"' }) };
  }
  if (!("method" in value) && ("result" in value || "error" in value)) {
    return { kind: "response" };
  }
  if (typeof value.method !== "string" || value.method.length === 0) {
    return { kind: "error", response: failure(id, { code: INVALID_REQUEST, message: "Invalid request: missing method" }) };
  }
  if (hasId && !isValidId(value.id)) {
    return { kind: "error", response: failure(null, { code: INVALID_REQUEST, message: "Invalid request: id must be a string or a number" }) };
  }
  if (value.params !== undefined && !isJsonObject(value.params)) {
    return { kind: "error", response: failure(id, { code: INVALID_REQUEST, message: "Invalid request: params must be an object" }) };
  }
  const params = value.params as JsonObject | undefined;
  if (!hasId) {
    return { kind: "notification", message: { jsonrpc: "2.0", method: value.method, ...(params ? { params } : {}) } };
  }
  return { kind: "request", message: { jsonrpc: "2.0", id: value.id as JsonRpcId, method: value.method, ...(params ? { params } : {}) } };
}

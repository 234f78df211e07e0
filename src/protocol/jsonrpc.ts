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
  /**
   * The id's own text when it is a number JavaScript cannot hold exactly (an integer past 2^53): the
   * response echoes these characters, not the rounded number. Never part of what is handled.
   */
  rawId?: string;
}

interface JsonRpcNotification {
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

function isValidId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

export type Decoded =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response" } // a response from the client: this server sends no requests, so it is dropped
  | { kind: "error"; response: JsonRpcFailure; rawId?: string };

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

/** Arguments holding molecule or table text: past the string limit, canvas_import reads the same from a file. */
const BULK_TEXT_ARGUMENTS = new Set(["smiles", "smiles_list", "sdf", "molblock", "csv", "smiles1", "smiles2", "json", "moljson"]);

/**
 * Finds the first array or string over the limits, walking iteratively. Returns a description naming where it
 * is (params.arguments.sdf) or null; an over-long tools/call argument of molecule or table text also says what to
 * send instead (canvas_import with a path).
 */
export function findSizeViolation(value: unknown): string | null {
  // Only a tool call's arguments have a canvas_import to point to.
  const toolsCall = isJsonObject(value) && value.method === "tools/call";
  const bulkHint = (path: string): string => (toolsCall ? bulkArgumentHint(path) : "");
  const stack: Array<{ v: unknown; path: string }> = [{ v: value, path: "" }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    const where = path === "" ? "" : ` at ${path}`;
    if (typeof v === "string") {
      // A JS string of n UTF-16 units encodes to at most 3n bytes; measure exactly only near the limit.
      if (v.length * 3 > MAX_STRING_BYTES && Buffer.byteLength(v, "utf8") > MAX_STRING_BYTES) {
        return `string longer than ${MAX_STRING_BYTES} bytes${where}${bulkHint(path)}`;
      }
    } else if (Array.isArray(v)) {
      if (v.length > MAX_ARRAY_LENGTH) return `array longer than ${MAX_ARRAY_LENGTH} items${where}${bulkHint(path)}`;
      v.forEach((item, i) => stack.push({ v: item, path: `${path}[${i}]` }));
    } else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        stack.push({ v: k, path });
        // A key is named in the message clipped: the message must not carry the oversized text it refuses.
        const key = k.length > MAX_PATH_KEY_CHARS ? `${k.slice(0, MAX_PATH_KEY_CHARS)}...` : k;
        stack.push({ v: item, path: path === "" ? key : `${path}.${key}` });
      }
    }
  }
  return null;
}

/** Characters of an object key shown in a size refusal's path. */
const MAX_PATH_KEY_CHARS = 64;

/** What to send instead of an over-long tools/call argument of molecule or table text. */
function bulkArgumentHint(path: string): string {
  const m = /^params\.arguments\.([A-Za-z0-9_]+)/.exec(path);
  if (!m || !BULK_TEXT_ARGUMENTS.has(m[1]!)) return "";
  return (
    `: too large to send inline. Put the molecules in a file (.smi, .csv, .sdf or .sdf.gz) in the server's import folder and stage them with ` +
    `canvas_import { path } (CHEMATIC_IMPORT_DIR), then work on the canvas table; or send fewer molecules a call`
  );
}

function idOf(value: unknown): JsonRpcId | null {
  return isJsonObject(value) && isValidId(value.id) ? value.id : null;
}

const NUMBER_TOKEN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The top-level "id" member of a JSON object text, read on the raw characters without parsing the rest
 * (so an over-deep message still names its id): its value when it is a string or a number, and its text.
 * The last "id" member wins, as JSON.parse keeps it. Undefined when the text is not an object or has none.
 */
export function scanTopLevelId(text: string): { value: JsonRpcId; raw: string } | undefined {
  let i = 0;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  if (text[i] !== "{") return undefined;
  let depth = 0;
  let found: { value: JsonRpcId; raw: string } | undefined;
  /** Position after the string starting at `start` (a quote), or -1 when it does not end. */
  const stringEnd = (start: number): number => {
    for (let j = start + 1; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === 92) j++;
      else if (c === 34) return j + 1;
    }
    return -1;
  };
  let expectKey = false;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(i);
      if (end < 0) return found;
      if (depth === 1 && expectKey) {
        let key: unknown;
        try {
          key = JSON.parse(text.slice(i, end));
        } catch {
          return found;
        }
        let k = end;
        while (k < text.length && /\s/.test(text[k]!)) k++;
        if (key === "id" && text[k] === ":") {
          k++;
          while (k < text.length && /\s/.test(text[k]!)) k++;
          if (text[k] === '"') {
            const valueEnd = stringEnd(k);
            if (valueEnd > 0) {
              try {
                found = { value: JSON.parse(text.slice(k, valueEnd)) as string, raw: text.slice(k, valueEnd) };
              } catch {
                // not a valid string: no id
              }
            }
          } else {
            NUMBER_TOKEN.lastIndex = k;
            const m = NUMBER_TOKEN.exec(text);
            // The number must end before the cut: "id":12 at the end of a prefix may be 1234 in the whole message.
            const after = m ? text[k + m[0].length] : undefined;
            if (m && after !== undefined && /[\s,}]/.test(after)) found = { value: Number(m[0]), raw: m[0] };
          }
        }
        expectKey = false;
      }
      i = end - 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      expectKey = depth === 1;
    } else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return found;
    } else if (c === 44 /* , */ && depth === 1) {
      expectKey = true;
    }
  }
  return found;
}

/** Bytes of an over-long message read for its id: clients write "id" before the params (jsonrpc, id, method, params). */
export const ID_PREFIX_BYTES = 64 * 1024;

/**
 * The id of a message too large to be read, from the first bytes of it (at most ID_PREFIX_BYTES): its top-level
 * "id" when that member comes before the cut, so the refusal reaches the caller's pending call instead of id null.
 * rawId keeps a numeric id's own digits when a JavaScript number does not hold them exactly.
 */
export function idOfPrefix(prefix: Uint8Array): { id: JsonRpcId | null; rawId?: string } {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(prefix.subarray(0, ID_PREFIX_BYTES));
  const scanned = scanTopLevelId(text);
  if (!scanned || !isValidId(scanned.value)) return { id: null };
  return typeof scanned.value === "number" && scanned.raw !== String(scanned.value) ? { id: scanned.value, rawId: scanned.raw } : { id: scanned.value };
}

/** The refusal of a message over MAX_REQUEST_BYTES, answered with its id when its first bytes name one. */
export function oversizeResponse(prefix: Uint8Array): { response: JsonRpcResponse; rawId?: string } {
  const { id, rawId } = idOfPrefix(prefix);
  const response = failure(id, { code: INVALID_REQUEST, message: `Request exceeds the maximum size of ${MAX_REQUEST_BYTES} bytes` });
  return rawId === undefined ? { response } : { response, rawId };
}

/** The raw text of a numeric id that a JavaScript number does not hold exactly (see JsonRpcRequest.rawId). */
function rawNumericId(text: string, id: unknown): string | undefined {
  if (typeof id !== "number" || Number.isSafeInteger(id)) return undefined;
  const scanned = scanTopLevelId(text);
  return scanned && scanned.raw !== String(id) ? scanned.raw : undefined;
}

/**
 * A response as one line. With `rawId`, the id is written as the request's own characters: every
 * response starts {"jsonrpc":"2.0","id":..., so the id is replaced there and nowhere else.
 */
export function serializeResponse(response: JsonRpcResponse, rawId?: string): string {
  const line = JSON.stringify(response);
  if (rawId === undefined) return line;
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(response.id)}`;
  return line.startsWith(head) ? `{"jsonrpc":"2.0","id":${rawId}${line.slice(head.length)}` : line;
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
    // Answered with the message's own id when its top level names one (nothing deeper is built).
    const top = scanTopLevelId(text);
    const scanned = top && isValidId(top.value) ? top : undefined;
    const response = failure(scanned?.value ?? null, { code: INVALID_REQUEST, message: `Request nesting exceeds the maximum depth of ${MAX_JSON_DEPTH}` });
    const rawId = scanned && typeof scanned.value === "number" && scanned.raw !== String(scanned.value) ? scanned.raw : undefined;
    return rawId === undefined ? { kind: "error", response } : { kind: "error", response, rawId };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: "error", response: failure(null, { code: PARSE_ERROR, message: `Parse error: ${(e as Error).message}` }) };
  }
  const violation = findSizeViolation(value);
  const rawId = isJsonObject(value) ? rawNumericId(text, value.id) : undefined;
  if (violation) {
    const response = failure(idOf(value), { code: INVALID_REQUEST, message: `Request exceeds a limit: ${violation}` });
    return rawId === undefined ? { kind: "error", response } : { kind: "error", response, rawId };
  }
  const decoded = classify(value);
  if (rawId === undefined) return decoded;
  if (decoded.kind === "request") decoded.message.rawId = rawId;
  else if (decoded.kind === "error" && decoded.response.id !== null) decoded.rawId = rawId;
  return decoded;
}

/** Checks the JSON-RPC 2.0 envelope of a parsed message. */
function classify(value: unknown): Decoded {
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
  const params = value.params;
  if (!hasId) {
    return { kind: "notification", message: { jsonrpc: "2.0", method: value.method, ...(params ? { params } : {}) } };
  }
  return { kind: "request", message: { jsonrpc: "2.0", id: value.id as JsonRpcId, method: value.method, ...(params ? { params } : {}) } };
}

/**
 * The era decision and the 2026-07-28 per-request `_meta`.
 *
 * The era of a request is decided here and nowhere else (classifyEra): the Connection pins it, the server
 * shapes answers for it, and a transport only passes in what it carries beside the body (HTTP's
 * MCP-Protocol-Version header). What each version does differently is in eras.ts.
 */
import { HEADER_MISMATCH, INVALID_PARAMS, RpcError, UNSUPPORTED_PROTOCOL_VERSION, isJsonObject, type JsonObject } from "./jsonrpc.js";
import {
  LATEST_LEGACY_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROGRESS_TOKEN,
  META_PROTOCOL_VERSION,
  SUPPORTED_MODERN_VERSIONS,
  isLegacyVersion,
  isModernVersion,
  type Era,
  type LegacyVersion,
} from "./eras.js";

export interface ClientMeta {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo?: { name: string; version: string };
  logLevel?: string;
  progressToken?: string | number;
}

export function metaOf(params: JsonObject | undefined): JsonObject | undefined {
  const meta = params?._meta;
  return isJsonObject(meta) ? meta : undefined;
}

/**
 * The dialect a body speaks: "modern" when it calls server/discover or carries any io.modelcontextprotocol/
 * key in params._meta; everything else is the legacy initialize dialect (2024-11-05 to 2025-11-25).
 */
function dialectOf(method: string, params: JsonObject | undefined): Era {
  if (method === "server/discover") return "modern";
  const meta = metaOf(params);
  if (meta && Object.keys(meta).some((k) => k.startsWith("io.modelcontextprotocol/"))) return "modern";
  return "legacy";
}

/**
 * A protocol-version value a transport carries beside the body (HTTP's MCP-Protocol-Version header):
 * absent, one value, or a reason it cannot be used (repeated, not plain ASCII).
 */
export type VersionHint = { value?: string; error?: string };

/** What classifyEra decides: the era, and for legacy the version the transport named, if any. */
export interface EraDecision {
  era: Era;
  /** A legacy version named by the transport's hint; absent when the connection's own version applies. */
  legacyVersion?: LegacyVersion;
}

/**
 * The one era decision. Without a hint (stdio) the body alone decides. With a hint (HTTP), a legacy body
 * takes its version from it (`defaultLegacy` when absent), a modern hint over a body without `_meta` is a
 * modern request that lacks its `_meta` (-32602 follows), and an unusable or unknown hint is refused:
 * -32020 (header mismatch) or -32022 with the 2026-07-28 versions, the same list as a refused `_meta`.
 */
export function classifyEra(method: string, params: JsonObject | undefined, hint?: VersionHint, defaultLegacy?: LegacyVersion): EraDecision | RpcError {
  if (dialectOf(method, params) === "modern") return { era: "modern" };
  if (hint === undefined) return { era: "legacy" };
  if (hint.error) return new RpcError(HEADER_MISMATCH, `Header mismatch: ${hint.error}`);
  if (hint.value === undefined) return defaultLegacy ? { era: "legacy", legacyVersion: defaultLegacy } : { era: "legacy" };
  if (isLegacyVersion(hint.value)) return { era: "legacy", legacyVersion: hint.value };
  if (isModernVersion(hint.value)) return { era: "modern" };
  return new RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", { supported: [...SUPPORTED_MODERN_VERSIONS], requested: hint.value });
}

export function progressTokenOf(params: JsonObject | undefined): string | number | undefined {
  const token = metaOf(params)?.[META_PROGRESS_TOKEN];
  return typeof token === "string" || (typeof token === "number" && Number.isFinite(token)) ? token : undefined;
}

/**
 * Validates the `_meta` of a modern request, in the order the conformance suite expects:
 * protocolVersion present (-32602), version supported (-32022), capabilities (-32602), clientInfo (-32602).
 * Unknown keys, unknown capability extensions and logLevel are tolerated.
 */
export function parseClientMeta(params: JsonObject | undefined): ClientMeta {
  if (params !== undefined && params._meta !== undefined && !isJsonObject(params._meta)) {
    throw new RpcError(INVALID_PARAMS, "Invalid params: _meta must be an object");
  }
  const meta = metaOf(params) ?? {};
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== "string" || version.length === 0) {
    throw new RpcError(INVALID_PARAMS, `Invalid params: _meta["${META_PROTOCOL_VERSION}"] is required (a protocol version string)`);
  }
  if (!isModernVersion(version)) {
    // The same list as a refused version hint (classifyEra): the 2026-07-28 versions. -32022 exists only in
    // that era, and a client that reads legacy versions here retries them in _meta (the conformance suite's
    // client then never finishes); legacy versions are negotiated by initialize.
    throw new RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", {
      supported: [...SUPPORTED_MODERN_VERSIONS],
      requested: version,
    });
  }
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isJsonObject(capabilities)) {
    throw new RpcError(INVALID_PARAMS, `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] is required (an object)`);
  }
  const result: ClientMeta = { protocolVersion: version, clientCapabilities: capabilities };
  if (meta[META_CLIENT_INFO] !== undefined) {
    const info = meta[META_CLIENT_INFO];
    if (!isJsonObject(info) || typeof info.name !== "string" || typeof info.version !== "string") {
      throw new RpcError(INVALID_PARAMS, `Invalid params: _meta["${META_CLIENT_INFO}"] must be an object with string name and version`);
    }
    result.clientInfo = { name: info.name, version: info.version };
  }
  if (typeof meta[META_LOG_LEVEL] === "string") result.logLevel = meta[META_LOG_LEVEL];
  const token = progressTokenOf(params);
  if (token !== undefined) result.progressToken = token;
  return result;
}

/** The version `initialize` answers: the client's when this server speaks it, otherwise the latest legacy one. */
export function negotiateLegacyVersion(requested: unknown): LegacyVersion {
  return isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
}

/**
 * Protocol eras and the 2026-07-28 per-request `_meta` triple.
 *
 * A request is "modern" when it carries any io.modelcontextprotocol/ key in params._meta or calls
 * server/discover; everything else is the legacy initialize dialect (2024-11-05 to 2025-11-25).
 */
import { INVALID_PARAMS, RpcError, UNSUPPORTED_PROTOCOL_VERSION, isJsonObject, type JsonObject } from "./jsonrpc.js";

export const MODERN_VERSION = "2026-07-28";
export const SUPPORTED_MODERN_VERSIONS = [MODERN_VERSION] as const;
/** Legacy versions this server negotiates in `initialize`, newest first. */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];
export const LATEST_LEGACY_VERSION: LegacyVersion = "2025-11-25";

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

export type Era = "legacy" | "modern";

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

export function dialectOf(method: string, params: JsonObject | undefined): Era {
  if (method === "server/discover") return "modern";
  const meta = metaOf(params);
  if (meta && Object.keys(meta).some((k) => k.startsWith("io.modelcontextprotocol/"))) return "modern";
  return "legacy";
}

export function progressTokenOf(params: JsonObject | undefined): string | number | undefined {
  const token = metaOf(params)?.progressToken;
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
  if (!(SUPPORTED_MODERN_VERSIONS as readonly string[]).includes(version)) {
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
  if (typeof meta[META_LOG_LEVEL] === "string") result.logLevel = meta[META_LOG_LEVEL] as string;
  const token = progressTokenOf(params);
  if (token !== undefined) result.progressToken = token;
  return result;
}

/** The version `initialize` answers: the client's when this server speaks it, otherwise the latest legacy one. */
export function negotiateLegacyVersion(requested: unknown): LegacyVersion {
  return (LEGACY_VERSIONS as readonly unknown[]).includes(requested) ? (requested as LegacyVersion) : LATEST_LEGACY_VERSION;
}

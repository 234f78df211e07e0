/**
 * Resources: read-only data addressed by URI (e.g. chembl://molecule/CHEMBL25). A provider owns one URI
 * scheme; the server lists its templates and concrete resources and routes resources/read to it.
 * Providers run on the main thread (they are network-bound, like service tools). Part of the contract
 * (floor 1): resources/ holds the providers, the server routes to them.
 */
import type { ServiceContext } from "./tool.js";

/** resources/templates/list entry (RFC 6570 level-1 template). */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
}

/** resources/list entry. */
export interface ResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  /** Bytes of the resource, where known without reading it. */
  size?: number;
  /** Extension metadata (an MCP App's `ui`: its CSP, border preference). */
  _meta?: Record<string, unknown>;
}

/** One item of resources/read `contents`. */
export type ResourceContents =
  | { uri: string; mimeType: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType: string; blob: string; _meta?: Record<string, unknown> };

export interface ResourceProvider {
  /** URI scheme this provider answers, without "://", e.g. "chembl". */
  scheme: string;
  /** Time budget of one read, at most 55 s. */
  budgetMs: number;
  /** Cache hint of a read (2026-07-28 ttlMs); reads are the same for every caller (cacheScope public). */
  readTtlMs: number;
  templates(): ResourceTemplate[];
  /** Concrete resources worth listing (may be empty: templated resources are read by URI). */
  list(): ResourceEntry[];
  /**
   * Reads one URI of this scheme. Throws ToolError NOT_FOUND (the server answers JSON-RPC -32602
   * "Resource not found" with data.uri) or another ToolError (sanitised; the server maps it).
   */
  read(uri: string, ctx: ServiceContext): Promise<ResourceContents[]>;
}

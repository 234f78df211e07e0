/**
 * Per-era wrapping of one tool outcome, and the envelope every result gets. A tool computes its result once;
 * only this module knows how each protocol version carries it (README, "How each era wraps a result"), from
 * what the version table (protocol/eras.ts) says each version does.
 *
 * | era        | success                                          | tool failure                                     |
 * | 2026-07-28 | resultType, text JSON, structuredContent, _meta  | isError, structuredContent.error                 |
 * | 2025-06-18+| text JSON, structuredContent                     | isError, text JSON of the error (see below)      |
 * | 2025-03-26 | text JSON                                        | isError, text JSON of the error                  |
 * | 2024-11-05 | text JSON                                        | JSON-RPC error -32000 (the reference's bytes)    |
 *
 * Legacy failures carry no structuredContent: the official v1 client (@modelcontextprotocol/sdk 1.x)
 * validates structuredContent against the tool's outputSchema even when isError is set, and would turn
 * our typed error into a client-side exception. The same {error} object travels in the text block.
 * The 2026-07-28 clients accept it, so the modern era carries structuredContent.error as specified.
 */
import type { ToolError } from "../domain/errors.js";
import { EXTRA_CONTENT_KEY, type ContentBlock } from "../contract/tool.js";
import { LEGACY_TOOL_ERROR, RpcError, isJsonObject, type JsonObject } from "../protocol/jsonrpc.js";
import { META_SERVER_INFO, features, writesMeta, type ProtocolVersion } from "../protocol/eras.js";

export interface ServerInfo {
  name: string;
  version: string;
}

export function serverInfoMeta(info: ServerInfo): JsonObject {
  return { [META_SERVER_INFO]: { name: info.name, version: info.version } };
}

/**
 * A result as `version` carries it: the payload, with resultType first, the cache hints (when the method's answer
 * has a lifetime, `ttlMs`) and the server's `_meta` last where the version has them. `scope` is private for an
 * answer that depends on what this client declared (the MCP Apps' tools and resources): a shared cache must not
 * hand it to another client.
 */
export function wrapResult(
  version: ProtocolVersion,
  payload: JsonObject,
  info: ServerInfo,
  ttlMs?: number,
  scope: "public" | "private" = "public",
): JsonObject {
  const { resultType, cacheHints } = features(version);
  const result: JsonObject = resultType ? { resultType: "complete", ...payload } : { ...payload };
  if (cacheHints && ttlMs !== undefined) {
    result.ttlMs = ttlMs;
    result.cacheScope = scope;
  }
  if (writesMeta(version, META_SERVER_INFO)) result._meta = serverInfoMeta(info);
  return result;
}

function textBlock(value: unknown): { type: "text"; text: string } {
  return { type: "text", text: JSON.stringify(value) };
}

/**
 * A tool's result. `blocks` replaces the text block only for test fixtures (ToolBase.content); `extra`
 * (taken out of the result by splitExtraContent) follows the text block, e.g. depict's image.
 */
export function toolSuccess(version: ProtocolVersion, value: JsonObject, info: ServerInfo, blocks?: ContentBlock[], extra: ContentBlock[] = []): JsonObject {
  const { structuredContent, resourceLinks } = features(version);
  // A version without resource links gets the rest (the text names the resource too).
  const content = [...(blocks ?? [textBlock(value)]), ...extra].filter((b) => resourceLinks || b.type !== "resource_link");
  return wrapResult(version, structuredContent ? { content, structuredContent: value } : { content }, info);
}

function isContentBlock(block: unknown): block is ContentBlock {
  if (!isJsonObject(block)) return false;
  switch (block.type) {
    case "text":
      return typeof block.text === "string";
    case "image":
    case "audio":
      return typeof block.data === "string" && typeof block.mimeType === "string";
    case "resource":
      return isJsonObject(block.resource) && typeof block.resource.uri === "string";
    case "resource_link":
      return typeof block.uri === "string" && typeof block.name === "string";
    default:
      return false;
  }
}

/**
 * Separates a tool's raw result into the object that becomes structuredContent and the extra content
 * blocks it carried under EXTRA_CONTENT_KEY. A malformed extra value is a bug of the tool: null.
 */
export function splitExtraContent(raw: unknown): { value: unknown; extra: ContentBlock[] } | null {
  if (!isJsonObject(raw) || !(EXTRA_CONTENT_KEY in raw)) return { value: raw, extra: [] };
  const { [EXTRA_CONTENT_KEY]: extra, ...value } = raw;
  if (!Array.isArray(extra) || !extra.every(isContentBlock)) return null;
  return { value, extra };
}

/** The ToolError behind each failure result (or 2024-11-05 RpcError) toolFailure made; never on the wire. */
const failures = new WeakMap<object, ToolError>();

/** The ToolError a tool-failure result or error stands for, for the operator's log line (see Connection). */
export function toolErrorOf(outcome: object): ToolError | undefined {
  return failures.get(outcome);
}

function remember<T extends object>(outcome: T, error: ToolError): T {
  failures.set(outcome, error);
  return outcome;
}

/**
 * One tool call's outcome, computed once and not yet wrapped for an era: the result (and the blocks a
 * content hook or the result's extra content gave) or the domain error.
 */
export type ToolOutcome = { ok: true; value: JsonObject; blocks?: ContentBlock[]; extra: ContentBlock[] } | { ok: false; error: ToolError };

/** The tools/call result of an outcome in one era (a 2024-11-05 failure throws its -32000). */
export function shapeOutcome(version: ProtocolVersion, outcome: ToolOutcome, info: ServerInfo): JsonObject {
  return outcome.ok ? toolSuccess(version, outcome.value, info, outcome.blocks, outcome.extra) : toolFailure(version, outcome.error, info);
}

/** A tool failure: a result the model can read, except on 2024-11-05 where the reference used -32000. */
export function toolFailure(version: ProtocolVersion, error: ToolError, info: ServerInfo): JsonObject {
  const payload = { error: error.toPayload() };
  const { toolFailure: form, structuredErrors } = features(version);
  if (form === "rpc-error") throw remember(new RpcError(LEGACY_TOOL_ERROR, error.message), error);
  const content = [textBlock(payload)];
  return remember(wrapResult(version, structuredErrors ? { content, structuredContent: payload, isError: true } : { content, isError: true }, info), error);
}

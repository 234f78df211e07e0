/**
 * The one table of the protocol versions this server speaks and of everything that differs between them: each
 * version's era and, as named fields, what its answers carry. Every other module asks this table (through the
 * accessors below) instead of comparing version strings; classifyEra (meta.ts) decides which era a request speaks.
 */
import {
  HEADER_MISMATCH,
  INVALID_PARAMS,
  INVALID_REQUEST,
  LEGACY_TOOL_ERROR,
  METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  PARSE_ERROR,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "./jsonrpc.js";

/** legacy: `initialize` negotiates a version for the session; modern: stateless, each request carries its `_meta`. */
export type Era = "legacy" | "modern";

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_PROGRESS_TOKEN = "progressToken";

/**
 * How an HTTP request's mirrored headers are checked. "required": MCP-Protocol-Version, Mcp-Method, Mcp-Name and
 * each x-mcp-header parameter's Mcp-Param-* must mirror the body (-32020); "when-sent": only an Mcp-Param-* header a
 * client sends anyway is checked (-32600).
 */
export type MirroredHeaderRule = "required" | "when-sent";

/** What one protocol version does where versions differ. */
export interface VersionFeatures {
  readonly era: Era;
  /** The methods beside tools/, resources/ and prompts/ (which every version has): the era's lifecycle. */
  readonly lifecycleMethods: readonly string[];
  /** initialize's result carries the server's instructions (2026-07-28: server/discover's always does). */
  readonly instructions: boolean;
  /** tools/list gives each tool its annotations, with the title among them. */
  readonly toolAnnotations: boolean;
  /** tools/list gives each tool a top-level title. */
  readonly toolTitles: boolean;
  /** prompts/list gives each prompt its title. */
  readonly promptTitles: boolean;
  /** A tool's success carries its result as structuredContent beside the text block. */
  readonly structuredContent: boolean;
  /** A tool's content may hold resource_link blocks (2025-06-18 on); earlier versions drop them (the text names the resource too). */
  readonly resourceLinks: boolean;
  /** How a tool's failure travels: a result with isError, or the JSON-RPC error -32000 the reference sent. */
  readonly toolFailure: "result" | "rpc-error";
  /** A failure result carries its {error} as structuredContent too (legacy ones only in the text block: shape.ts says why). */
  readonly structuredErrors: boolean;
  /** The JSON-RPC code of a tools/call refused before it runs (no name, arguments not an object, an unknown tool). */
  readonly refusedToolCallCode: number;
  /** Every result says resultType "complete". */
  readonly resultType: boolean;
  /** Registry lists and resource reads carry their lifetime (ttlMs) and cacheScope. */
  readonly cacheHints: boolean;
  /** The `_meta` keys the server reads from a request's params, and those it writes into every result. */
  readonly meta: { readonly reads: readonly string[]; readonly writes: readonly string[] };
  /** Streamable HTTP. */
  readonly http: {
    /** The client sends MCP-Protocol-Version on every request (a request without it speaks DEFAULT_LEGACY_HTTP_VERSION). */
    readonly versionHeader: boolean;
    readonly mirroredHeaders: MirroredHeaderRule;
    /** The HTTP status of a JSON-RPC error answer, by code; any other code is answered 200 with its body. */
    readonly errorStatus: Readonly<Record<number, number>>;
  };
}

const LEGACY_LIFECYCLE = ["initialize", "ping"] as const;
const LEGACY_META = { reads: [META_PROGRESS_TOKEN], writes: [] } as const;
// HTTP statuses of JSON-RPC errors. A message that is not a request (unparseable, or not a valid one) is 400 in
// every version. The 2025 transport carries a handler's JSON-RPC error in a 200 response (the official v1 SDK does
// so, and its client then raises the typed McpError); 2026-07-28 maps the codes it names. -32603 is 200 in both,
// so a client reads the typed error (a resources/read failure's {code, hint}) instead of an HTTP failure.
const LEGACY_ERROR_STATUS = { [PARSE_ERROR]: 400, [INVALID_REQUEST]: 400 } as const;

/** Every version this server speaks, newest first. */
export const PROTOCOL_VERSIONS = {
  "2026-07-28": {
    era: "modern",
    lifecycleMethods: ["server/discover"],
    instructions: true,
    toolAnnotations: true,
    toolTitles: true,
    promptTitles: true,
    structuredContent: true,
    resourceLinks: true,
    toolFailure: "result",
    structuredErrors: true,
    refusedToolCallCode: INVALID_PARAMS,
    resultType: true,
    cacheHints: true,
    meta: {
      reads: [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROGRESS_TOKEN],
      writes: [META_SERVER_INFO],
    },
    http: {
      versionHeader: true,
      mirroredHeaders: "required",
      errorStatus: {
        [PARSE_ERROR]: 400,
        [INVALID_REQUEST]: 400,
        [METHOD_NOT_FOUND]: 404,
        [INVALID_PARAMS]: 400,
        [HEADER_MISMATCH]: 400,
        [MISSING_REQUIRED_CLIENT_CAPABILITY]: 400,
        [UNSUPPORTED_PROTOCOL_VERSION]: 400,
      },
    },
  },
  "2025-11-25": {
    era: "legacy",
    lifecycleMethods: LEGACY_LIFECYCLE,
    instructions: true,
    toolAnnotations: true,
    toolTitles: true,
    promptTitles: true,
    structuredContent: true,
    resourceLinks: true,
    toolFailure: "result",
    structuredErrors: false,
    refusedToolCallCode: INVALID_PARAMS,
    resultType: false,
    cacheHints: false,
    meta: LEGACY_META,
    http: { versionHeader: true, mirroredHeaders: "when-sent", errorStatus: LEGACY_ERROR_STATUS },
  },
  "2025-06-18": {
    era: "legacy",
    lifecycleMethods: LEGACY_LIFECYCLE,
    instructions: true,
    toolAnnotations: true,
    toolTitles: true,
    promptTitles: true,
    structuredContent: true,
    resourceLinks: true,
    toolFailure: "result",
    structuredErrors: false,
    refusedToolCallCode: INVALID_PARAMS,
    resultType: false,
    cacheHints: false,
    meta: LEGACY_META,
    http: { versionHeader: true, mirroredHeaders: "when-sent", errorStatus: LEGACY_ERROR_STATUS },
  },
  "2025-03-26": {
    era: "legacy",
    lifecycleMethods: LEGACY_LIFECYCLE,
    instructions: true,
    toolAnnotations: true,
    toolTitles: false,
    promptTitles: false,
    structuredContent: false,
    resourceLinks: false,
    toolFailure: "result",
    structuredErrors: false,
    refusedToolCallCode: INVALID_PARAMS,
    resultType: false,
    cacheHints: false,
    meta: LEGACY_META,
    http: { versionHeader: false, mirroredHeaders: "when-sent", errorStatus: LEGACY_ERROR_STATUS },
  },
  // The reference server's version: its answers keep the reference's bytes (no instructions, no annotations,
  // every tools/call problem -32000).
  "2024-11-05": {
    era: "legacy",
    lifecycleMethods: LEGACY_LIFECYCLE,
    instructions: false,
    toolAnnotations: false,
    toolTitles: false,
    promptTitles: false,
    structuredContent: false,
    resourceLinks: false,
    toolFailure: "rpc-error",
    structuredErrors: false,
    refusedToolCallCode: LEGACY_TOOL_ERROR,
    resultType: false,
    cacheHints: false,
    meta: LEGACY_META,
    http: { versionHeader: false, mirroredHeaders: "when-sent", errorStatus: LEGACY_ERROR_STATUS },
  },
} as const satisfies Record<string, VersionFeatures>;

type Table = typeof PROTOCOL_VERSIONS;
export type ProtocolVersion = keyof Table;
/** The versions of one era. */
type VersionOf<E extends Era> = { [V in ProtocolVersion]: Table[V]["era"] extends E ? V : never }[ProtocolVersion];
export type LegacyVersion = VersionOf<"legacy">;
export type ModernVersion = VersionOf<"modern">;

function versionsOf<E extends Era>(era: E): readonly VersionOf<E>[] {
  return (Object.keys(PROTOCOL_VERSIONS) as ProtocolVersion[]).filter((v): v is VersionOf<E> => PROTOCOL_VERSIONS[v].era === era);
}

/** The newest of `versions` that `test` accepts; the table holds one, or this module fails to load. */
function newest<V extends ProtocolVersion>(versions: readonly V[], test: (f: VersionFeatures) => boolean = () => true): V {
  const found = versions.find((v) => test(PROTOCOL_VERSIONS[v]));
  if (found === undefined) throw new Error("the protocol version table holds no such version");
  return found;
}

/** The 2026-07-28 versions, newest first: what server/discover and a refused version (-32022) list. */
export const SUPPORTED_MODERN_VERSIONS = versionsOf("modern");
/** The version a modern answer is shaped for. */
export const MODERN_VERSION = newest(SUPPORTED_MODERN_VERSIONS);
/** Legacy versions this server negotiates in `initialize`, newest first. */
export const LEGACY_VERSIONS = versionsOf("legacy");
/** What `initialize` answers when the client asks for a version this server does not speak. */
export const LATEST_LEGACY_VERSION = newest(LEGACY_VERSIONS);
/** The reference server's version, the oldest this server speaks: a legacy connection speaks it until initialize negotiates another. */
export const REFERENCE_VERSION: LegacyVersion = "2024-11-05";
/**
 * The legacy version of an HTTP request without an MCP-Protocol-Version header: its client is of a version that
 * sends none, the newest of which is 2025-03-26 (the first with Streamable HTTP; the 2025-06-18 transport says to
 * assume it).
 */
export const DEFAULT_LEGACY_HTTP_VERSION = newest(LEGACY_VERSIONS, (f) => !f.http.versionHeader);

export function isLegacyVersion(value: unknown): value is LegacyVersion {
  return (LEGACY_VERSIONS as readonly unknown[]).includes(value);
}

export function isModernVersion(value: unknown): value is ModernVersion {
  return (SUPPORTED_MODERN_VERSIONS as readonly unknown[]).includes(value);
}

/** What `version` does where versions differ. */
export function features(version: ProtocolVersion): VersionFeatures {
  return PROTOCOL_VERSIONS[version];
}

/** Whether a request of `version` has `key` in its `_meta` read. */
export function readsMeta(version: ProtocolVersion, key: string): boolean {
  return features(version).meta.reads.includes(key);
}

/** Whether every result of `version` carries `key` in its `_meta`. */
export function writesMeta(version: ProtocolVersion, key: string): boolean {
  return features(version).meta.writes.includes(key);
}

/**
 * The entry that speaks for every version of an era, for what a caller that knows a request's era but not its
 * version asks (the lifecycle methods, HTTP's rules): every version of the era agrees on these, as
 * test/protocol/eras.test.ts checks.
 */
function eraEntry(era: Era): VersionFeatures {
  return features(era === "legacy" ? LATEST_LEGACY_VERSION : MODERN_VERSION);
}

/** The methods beside tools/, resources/ and prompts/ that `era` has. */
export function lifecycleMethods(era: Era): readonly string[] {
  return eraEntry(era).lifecycleMethods;
}

/** How strictly an HTTP request of `era` has its mirrored headers checked. */
export function mirroredHeaders(era: Era): MirroredHeaderRule {
  return eraEntry(era).http.mirroredHeaders;
}

/** The HTTP status of an answer with JSON-RPC error `code` in `era` (200 for a code the era maps to none). */
export function httpErrorStatus(era: Era, code: number): number {
  return eraEntry(era).http.errorStatus[code] ?? 200;
}

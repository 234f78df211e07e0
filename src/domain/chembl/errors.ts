/**
 * Upstream failures, sanitised in one place. ChEMBL answers 5xx with EBI or Apache HTML pages, 400 with
 * `{"error_message": ...}` that echoes the request, and 404 with an empty body. None of that reaches a
 * client: every failure becomes a ToolError whose message, hint and details this module writes itself
 * (a code, an HTTP status, an attempt count, a Retry-After). The raw upstream failure stays on `cause`,
 * which is never serialised.
 */
import { ToolError, type ErrorCode, type ErrorDetails } from "../errors.js";

/** Why a request failed, for details.reason (our vocabulary, never upstream text). */
type UpstreamReason =
  "not_found" | "rejected" | "invalid_structure" | "rate_limited" | "http_5xx" | "http_status" | "timeout" | "network" | "malformed_body" | "deadline";

export class UpstreamError extends ToolError {
  /** Whether another attempt might succeed (network, timeout, 5xx, 429, a truncated body). */
  readonly retryable: boolean;
  /** Milliseconds ChEMBL asked us to wait (429 Retry-After), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    details: ErrorDetails,
    options: { retryable?: boolean; retryAfterMs?: number; cause?: unknown; hint?: string } = {},
  ) {
    super(code, message, details, options.hint);
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    // Kept for operators and tests; non-enumerable so no serialiser picks it up.
    Object.defineProperty(this, "cause", { value: options.cause, enumerable: false, writable: true, configurable: true });
  }

  /** The same error with attempt bookkeeping added (details we write, nothing upstream). */
  withDetails(extra: ErrorDetails, message?: string): UpstreamError {
    return new UpstreamError(
      this.code,
      message ?? this.message,
      { ...this.details, ...extra },
      {
        retryable: this.retryable,
        retryAfterMs: this.retryAfterMs,
        cause: (this as { cause?: unknown }).cause,
        hint: this.hint,
      },
    );
  }
}

/** What the request was for, so the message can say it in our words. */
export interface RequestPurpose {
  /** Human words for the thing fetched, e.g. "molecule CHEMBL25" or "activities". */
  what: string;
  /** A structure search (similarity, substructure, flexmatch): a 400 means ChEMBL refused the structure. */
  structure?: boolean;
  /** A 404 means the thing does not exist (detail lookups) rather than a broken endpoint (lists, batches). */
  notFoundMeansMissing?: boolean;
}

/** Parses Retry-After (delta-seconds or an HTTP date) into milliseconds, capped at an hour. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, 3_600_000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), 3_600_000);
}

/**
 * A 400 on a structure search: ChEMBL's error_message templates are matched to a reason of ours, and
 * only the reason travels. The body itself is dropped here.
 */
function structureRejection(body: string): { reason: string; message: string } {
  const b = body.toLowerCase();
  if (b.includes("too short")) return { reason: "too_short", message: "ChEMBL refused the structure query as too short (it needs at least 5 characters)" };
  if (b.includes("similarity score")) return { reason: "threshold", message: "ChEMBL refused the similarity threshold (it accepts 40 to 100)" };
  if (b.includes("smiles") || b.includes("structure")) return { reason: "unparsable", message: "ChEMBL could not parse the structure query" };
  return { reason: "rejected", message: "ChEMBL refused the structure query" };
}

/** Maps one HTTP answer that is not a usable 2xx into a sanitised error. */
export function httpFailure(status: number, body: string, headers: Record<string, string>, purpose: RequestPurpose): UpstreamError {
  const cause = { status, body: body.slice(0, 2000) };
  if (status === 404) {
    if (purpose.notFoundMeansMissing) {
      return new UpstreamError("NOT_FOUND", `ChEMBL has no ${purpose.what}`, { status, reason: "not_found" satisfies UpstreamReason }, { cause });
    }
    return new UpstreamError(
      "UPSTREAM_UNAVAILABLE",
      `ChEMBL answered HTTP 404 for ${purpose.what}`,
      { status, reason: "http_status" satisfies UpstreamReason },
      {
        cause,
        hint: "ChEMBL did not recognise the request (the API may have changed or the base URL may be wrong); retry later or check CHEMBL_API_BASE_URL.",
      },
    );
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers["retry-after"]);
    const details: ErrorDetails = { status, reason: "rate_limited" satisfies UpstreamReason };
    if (retryAfterMs !== undefined) details.retry_after_s = Math.ceil(retryAfterMs / 1000);
    return new UpstreamError("RATE_LIMITED", `ChEMBL is rate limiting requests (HTTP 429) for ${purpose.what}`, details, {
      retryable: true,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      cause,
      hint: retryAfterMs !== undefined ? `Wait ${Math.ceil(retryAfterMs / 1000)} s (details.retry_after_s), then retry.` : "Wait a few seconds, then retry.",
    });
  }
  if (status === 400 && purpose.structure) {
    const r = structureRejection(body);
    return new UpstreamError("INVALID_STRUCTURE", r.message, { status, reason: "invalid_structure" satisfies UpstreamReason, rejection: r.reason }, { cause });
  }
  if (status >= 500) {
    return new UpstreamError(
      "UPSTREAM_UNAVAILABLE",
      `ChEMBL failed with HTTP ${status} for ${purpose.what}`,
      { status, reason: "http_5xx" satisfies UpstreamReason },
      {
        retryable: true,
        cause,
      },
    );
  }
  return new UpstreamError(
    "UPSTREAM_UNAVAILABLE",
    `ChEMBL refused the request for ${purpose.what} (HTTP ${status})`,
    { status, reason: (status === 400 ? "rejected" : "http_status") satisfies UpstreamReason },
    { cause, hint: "ChEMBL refused this query; simplify the filters or retry later." },
  );
}

/** A 2xx whose body is not the JSON we asked for (truncated transfer, an HTML page, a proxy's answer). */
export function malformedBody(purpose: RequestPurpose, cause: unknown): UpstreamError {
  return new UpstreamError(
    "UPSTREAM_UNAVAILABLE",
    `ChEMBL sent an unreadable answer for ${purpose.what}`,
    { reason: "malformed_body" satisfies UpstreamReason },
    {
      retryable: true,
      cause,
    },
  );
}

export function networkFailure(purpose: RequestPurpose, timedOut: boolean, timeoutMs: number, cause: unknown): UpstreamError {
  return timedOut
    ? new UpstreamError(
        "UPSTREAM_UNAVAILABLE",
        `ChEMBL did not answer within ${timeoutMs} ms for ${purpose.what}`,
        { reason: "timeout" satisfies UpstreamReason, timeout_ms: timeoutMs },
        {
          retryable: true,
          cause,
        },
      )
    : new UpstreamError(
        "UPSTREAM_UNAVAILABLE",
        `ChEMBL could not be reached for ${purpose.what}${causeWords(networkCode(cause))}`,
        { reason: "network" satisfies UpstreamReason, ...(networkCode(cause) !== undefined ? { cause_code: networkCode(cause) } : {}) },
        { retryable: true, cause, hint: UNREACHABLE_HINT },
      );
}

/** What to do when ChEMBL cannot be reached: the offline dump is the way to work without it. */
const UNREACHABLE_HINT =
  "If this machine has no internet access (or ChEMBL is blocked), point CHEMBL_SQLITE at an offline ChEMBL dump " +
  "(`chematic-mcp chembl download`) and restart: every ChEMBL tool then answers from it. Otherwise check the network " +
  "and proxy settings (`chematic-mcp doctor`) and retry.";

/** The system error code behind a network failure (ENOTFOUND, ECONNREFUSED, a TLS code), from the fetcher's error or its causes. */
function networkCode(cause: unknown): string | undefined {
  let e = cause as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (typeof e.code === "string" && /^[A-Z][A-Z0-9_]{2,}$/.test(e.code) && e.code !== "network") return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/** A network code in words, for the message (our words; the code itself is a fixed vocabulary, not upstream text). */
function causeWords(code: string | undefined): string {
  if (code === undefined) return "";
  const known: Record<string, string> = {
    ENOTFOUND: "the host name did not resolve: no DNS, or no network",
    EAI_AGAIN: "the host name could not be resolved just now: DNS is unreachable",
    ECONNREFUSED: "the connection was refused",
    ECONNRESET: "the connection was reset",
    ENETUNREACH: "the network is unreachable",
    EHOSTUNREACH: "the host is unreachable",
    EPROXY: "the proxy refused the request",
  };
  const words = known[code] ?? (/CERT|SSL|TLS|SELF_SIGNED/.test(code) ? "the TLS certificate was not accepted" : undefined);
  return ` (${code}${words ? `: ${words}` : ""})`;
}

/**
 * The call's deadline ran out. `waitingFor` says on what: ChEMBL itself (a request it did not answer in
 * time, or retries of its failures) or the service-wide request slots (CHEMBL_MAX_CONCURRENT_PAGES). Neither
 * is cured by a narrower query, so the hint says what is: retry later.
 */
export function deadlineExceeded(
  purpose: RequestPurpose,
  deadlineMs: number,
  cause?: unknown,
  waitingFor: "upstream" | "request_slot" = "upstream",
): UpstreamError {
  const ms = Math.round(deadlineMs);
  const slot = waitingFor === "request_slot";
  return new UpstreamError(
    "DEADLINE_EXCEEDED",
    slot
      ? `No ChEMBL request slot came free for ${purpose.what} within this call's ${ms} ms deadline (other calls held them)`
      : `ChEMBL did not answer for ${purpose.what} within this call's ${ms} ms deadline`,
    { reason: "deadline" satisfies UpstreamReason, deadline_ms: ms, waiting_for: waitingFor },
    {
      cause,
      hint: slot
        ? "The server was busy with other ChEMBL calls; retry in a few seconds (the query itself is fine)."
        : "ChEMBL is slow or not answering (the query itself is fine, narrowing it will not help); retry in a minute. If it persists, run chematic-mcp doctor or check CHEMBL_API_BASE_URL and the proxy settings.",
    },
  );
}

export function offline(): ToolError {
  return new ToolError(
    "OFFLINE",
    "ChEMBL tools are disabled: CHEMATIC_OFFLINE is set",
    { setting: "CHEMATIC_OFFLINE" },
    "Point CHEMBL_SQLITE at an offline ChEMBL dump (`chematic-mcp chembl download`) and restart: the ChEMBL tools then answer from it, even under CHEMATIC_OFFLINE.",
  );
}

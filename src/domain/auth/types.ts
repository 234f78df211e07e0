/**
 * What the HTTP transport's authentication decides for one request (the transport answers a refusal with
 * its status and WWW-Authenticate challenge; an accepted caller's owner key goes to the tools, where the
 * canvases it makes belong to it).
 */

/** An accepted caller. */
export interface Caller {
  /** The key canvases belong to: `token:<label>` (bearer mode) or `sub:<subject>` (OAuth mode). */
  owner: string;
  /** What the log line of each call names: the token's label, or the token's subject. */
  label: string;
}

/** A refused request: its status, the WWW-Authenticate header, and a message a person can read (never the token). */
interface AuthRefusal {
  status: 400 | 401 | 403 | 503;
  challenge: string;
  message: string;
}

export type AuthVerdict = { ok: true; caller: Caller } | ({ ok: false } & AuthRefusal);

/** The authentication the HTTP transport runs on every request to the MCP endpoint. */
export interface HttpAuthenticator {
  readonly mode: "bearer" | "oauth";
  /**
   * Judges a request by its Authorization header values (undefined when there is none; more than one is
   * refused). Never throws: a failure to check a token (the issuer unreachable) is a 503 refusal.
   */
  authenticate(authorization: readonly string[] | undefined): Promise<AuthVerdict>;
  /** A document served unauthenticated at `path` (RFC 9728 protected-resource metadata), or undefined. */
  wellKnown(path: string): Record<string, unknown> | undefined;
}

/** RFC 6750 token68 (the characters a bearer token may hold). */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The bearer token of a request: undefined when it sends no Authorization header or another scheme (which
 * RFC 6750 answers like no credentials), an error message when the header is repeated or malformed.
 */
export function bearerToken(values: readonly string[] | undefined): { token?: string; malformed?: string } {
  if (values === undefined || values.length === 0) return {};
  if (values.length > 1) return { malformed: "the Authorization header appears more than once" };
  const value = values[0]!.trim();
  const space = value.indexOf(" ");
  const scheme = space < 0 ? value : value.slice(0, space);
  if (scheme.toLowerCase() !== "bearer") return {};
  const token = space < 0 ? "" : value.slice(space + 1).trim();
  if (token === "" || !TOKEN68.test(token)) return { malformed: "the Authorization header is not 'Bearer <token>'" };
  return { token };
}

/** A quoted-string for a WWW-Authenticate parameter (RFC 9110): backslash and double quote escaped, controls dropped. */
export function quoted(text: string): string {
  // eslint-disable-next-line no-control-regex
  return `"${text.replace(/[\u0000-\u001f\u007f]/g, " ").replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

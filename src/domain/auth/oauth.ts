/**
 * OAuth mode (`--auth oauth`): this server is an OAuth 2.1 resource server as the MCP authorization spec
 * (revision 2026-07-28) defines it. It accepts JWT access tokens issued by one authorization server
 * (CHEMATIC_OAUTH_ISSUER) for this server (CHEMATIC_OAUTH_AUDIENCE, its canonical resource URL), and it
 * publishes its RFC 9728 protected-resource metadata so clients find that authorization server.
 *
 * Start-up: the issuer's metadata is fetched (RFC 8414 /.well-known/oauth-authorization-server, then OpenID
 * discovery, in the order the MCP spec gives, with the path-insertion rule for an issuer with a path), its
 * `issuer` must equal CHEMATIC_OAUTH_ISSUER exactly, and its `jwks_uri` names the keys. HTTPS is required for
 * the issuer, the audience and the keys unless the issuer is a loopback address (a test or a local server).
 * These fetches go through the shared outbound client (proxy variables honoured) and are never blocked by
 * CHEMATIC_OFFLINE, which only switches off the networked tools.
 *
 * Each request: the token's signature is checked against the issuer's JWKS (jose's createRemoteJWKSet: the
 * key set is cached, and fetched again for a key ID it does not hold, so a rotated key is picked up), with an
 * algorithm allow-list of asymmetric algorithms only (never `none`, never an HMAC algorithm: the key set is
 * public); then `iss`, `aud` (must contain the audience), `exp` and `nbf` (60 s of clock skew), a subject,
 * and the scopes CHEMATIC_OAUTH_SCOPES requires (from `scope` or `scp`). A refusal carries the
 * WWW-Authenticate challenge the spec asks for: `resource_metadata`, `scope` when scopes are required, and
 * `error="invalid_token"` (401) or `error="insufficient_scope"` (403).
 *
 * jose is imported only in this mode. Tokens are never logged and never sent anywhere.
 */
import type { JWTPayload, JWTVerifyGetKey } from "jose";
import { ConfigError } from "../../config.js";
import { getJson, httpRequest, HttpFailure } from "../net/http-client.js";
import { bearerToken, quoted, type AuthVerdict, type HttpAuthenticator } from "./types.js";

/** Signature algorithms accepted: asymmetric only (a JWKS is public, so an HMAC key in it would be known to all). */
const ALLOWED_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;
/** Clock skew tolerated on exp, nbf and iat. */
const CLOCK_SKEW_S = 60;
const PRM_PATH = "/.well-known/oauth-protected-resource";
const METADATA_TIMEOUT_MS = 10_000;
const METADATA_MAX_BYTES = 1024 * 1024;

export interface OAuthConfig {
  /** CHEMATIC_OAUTH_ISSUER, exactly as given (the issuer's metadata must name the same string). */
  issuer: string;
  /** CHEMATIC_OAUTH_AUDIENCE: this server's canonical resource URL, which every token's `aud` must contain. */
  audience: string;
  /** CHEMATIC_OAUTH_SCOPES: scopes every token must carry (empty: none required). */
  scopes: string[];
}

function isLoopbackUrlHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function parseUrl(name: string, value: string | undefined, loopbackHttp: boolean): URL {
  const raw = value?.trim() ?? "";
  if (raw === "") throw new ConfigError(`${name} is required with --auth oauth`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute https URL, got "${raw}"`);
  }
  if (url.username || url.password || url.search || url.hash) throw new ConfigError(`${name} must have no credentials, query or fragment, got "${raw}"`);
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && loopbackHttp && isLoopbackUrlHost(url.hostname)) return url;
  throw new ConfigError(`${name} must be an https URL (http only for a loopback issuer), got "${raw}"`);
}

/** RFC 6749 scope-token characters. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The OAuth settings from the environment; ConfigError names the variable at fault. */
export function loadOAuthConfig(env: NodeJS.ProcessEnv = process.env): OAuthConfig {
  const issuerUrl = parseUrl("CHEMATIC_OAUTH_ISSUER", env.CHEMATIC_OAUTH_ISSUER, true);
  const loopbackIssuer = issuerUrl.protocol === "http:";
  parseUrl("CHEMATIC_OAUTH_AUDIENCE", env.CHEMATIC_OAUTH_AUDIENCE, loopbackIssuer);
  const scopes = (env.CHEMATIC_OAUTH_SCOPES ?? "").split(/[\s,]+/).filter((s) => s !== "");
  for (const scope of scopes) {
    if (!SCOPE.test(scope)) throw new ConfigError(`CHEMATIC_OAUTH_SCOPES holds "${scope}", which is not an OAuth scope token`);
    if (scope === "offline_access")
      throw new ConfigError("CHEMATIC_OAUTH_SCOPES must not require offline_access (a refresh-token matter, not a resource's scope)");
  }
  return { issuer: env.CHEMATIC_OAUTH_ISSUER!.trim(), audience: env.CHEMATIC_OAUTH_AUDIENCE!.trim(), scopes: [...new Set(scopes)] };
}

/**
 * Where the issuer's metadata is looked for, in the MCP spec's order: with a path (https://as/tenant1),
 * RFC 8414 path insertion, OpenID path insertion, OpenID path appending; without, RFC 8414 then OpenID.
 */
export function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  if (path === "") return [new URL("/.well-known/oauth-authorization-server", url.origin), new URL("/.well-known/openid-configuration", url.origin)];
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, url.origin),
    new URL(`/.well-known/openid-configuration${path}`, url.origin),
    new URL(`${path}/.well-known/openid-configuration`, url.origin),
  ];
}

/** The RFC 9728 metadata URL of a resource: /.well-known/oauth-protected-resource inserted before its path. */
export function resourceMetadataUrl(audience: string): string {
  const url = new URL(audience);
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${PRM_PATH}${path}`;
}

export class IssuerDiscoveryError extends Error {}

interface IssuerMetadata {
  issuer: string;
  jwks_uri: string;
}

/** Fetches and checks the issuer's metadata (see metadataUrls): the first document naming the issuer exactly, with a usable jwks_uri. */
export async function discoverIssuer(
  issuer: string,
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<IssuerMetadata & { from: string }> {
  const tried: string[] = [];
  const loopbackIssuer = new URL(issuer).protocol === "http:";
  for (const url of metadataUrls(issuer)) {
    let data: unknown;
    try {
      const response = await getJson(url, {
        timeoutMs: options.timeoutMs ?? METADATA_TIMEOUT_MS,
        maxRedirects: 0,
        maxBytes: METADATA_MAX_BYTES,
        ...(options.env ? { env: options.env } : {}),
      });
      data = response.data;
    } catch (e) {
      tried.push(`${url.href}: ${e instanceof HttpFailure ? (e.status !== undefined ? `HTTP ${e.status}` : e.kind) : (e as Error).message}`);
      continue;
    }
    const doc = data as Partial<Record<string, unknown>> | null;
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
      tried.push(`${url.href}: not a JSON object`);
      continue;
    }
    if (doc.issuer !== issuer) {
      // RFC 8414 3.3: metadata naming another issuer must not be used.
      tried.push(`${url.href}: names the issuer ${JSON.stringify(doc.issuer)}, not ${issuer}`);
      continue;
    }
    if (typeof doc.jwks_uri !== "string") {
      tried.push(`${url.href}: has no jwks_uri`);
      continue;
    }
    let jwks: URL;
    try {
      jwks = new URL(doc.jwks_uri);
    } catch {
      throw new IssuerDiscoveryError(`the issuer's jwks_uri is not a URL (${JSON.stringify(doc.jwks_uri).slice(0, 200)})`);
    }
    if (!(jwks.protocol === "https:" || (jwks.protocol === "http:" && loopbackIssuer && isLoopbackUrlHost(jwks.hostname)))) {
      throw new IssuerDiscoveryError(`the issuer's jwks_uri must be https (http only on loopback for a loopback issuer), got ${jwks.href}`);
    }
    return { issuer, jwks_uri: jwks.href, from: url.href };
  }
  throw new IssuerDiscoveryError(`no usable metadata for the issuer ${issuer}: ${tried.join("; ")}`);
}

export interface OAuthOptions {
  env?: NodeJS.ProcessEnv;
  /** After a key set fetch, how long an unknown key ID waits before the key set is fetched again (default 30 s; tests shorten it). */
  jwksCooldownMs?: number;
  /** How long a fetched key set is used before it is fetched again (default 10 min). */
  jwksMaxAgeMs?: number;
}

type Jose = typeof import("jose");

/** The fetch jose uses for the key set: the shared outbound client, so proxies apply and responses are bounded. */
function joseFetch(env: NodeJS.ProcessEnv | undefined) {
  return async (url: string, init: { signal?: AbortSignal; headers?: ConstructorParameters<typeof Headers>[0] }): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => (headers[key] = value));
    const response = await httpRequest(url, {
      timeoutMs: METADATA_TIMEOUT_MS,
      maxRedirects: 0,
      maxBytes: METADATA_MAX_BYTES,
      headers,
      ...(init.signal ? { signal: init.signal } : {}),
      ...(env ? { env } : {}),
    });
    const status = response.status >= 200 && response.status <= 599 ? response.status : 502;
    return new Response([204, 205, 304].includes(status) ? null : new Uint8Array(response.body), { status });
  };
}

/** A refusal of an unusable token: 401 with error="invalid_token". */
class InvalidToken extends Error {}

export class OAuthAuthenticator implements HttpAuthenticator {
  readonly mode = "oauth" as const;
  private readonly metadataUrl: string;
  private readonly prmPaths: Set<string>;
  private readonly document: Record<string, unknown>;

  private constructor(
    readonly config: OAuthConfig,
    readonly jwksUri: string,
    private readonly jose: Jose,
    private readonly keys: JWTVerifyGetKey,
  ) {
    this.metadataUrl = resourceMetadataUrl(config.audience);
    const audiencePath = new URL(config.audience).pathname.replace(/\/+$/, "");
    this.prmPaths = new Set([PRM_PATH, `${PRM_PATH}/mcp`, `${PRM_PATH}${audiencePath}`]);
    this.document = {
      resource: config.audience,
      authorization_servers: [config.issuer],
      ...(config.scopes.length > 0 ? { scopes_supported: config.scopes } : {}),
      bearer_methods_supported: ["header"],
      resource_name: "chematic-mcp",
    };
  }

  /** Discovers the issuer and prepares its key set (jose loads here); IssuerDiscoveryError when the issuer cannot be used. */
  static async create(config: OAuthConfig, options: OAuthOptions = {}): Promise<OAuthAuthenticator> {
    const metadata = await discoverIssuer(config.issuer, options.env ? { env: options.env } : {});
    const jose = await import("jose");
    const keys = jose.createRemoteJWKSet(new URL(metadata.jwks_uri), {
      timeoutDuration: METADATA_TIMEOUT_MS,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      cacheMaxAge: options.jwksMaxAgeMs ?? 600_000,
      [jose.customFetch]: joseFetch(options.env),
    });
    return new OAuthAuthenticator(config, metadata.jwks_uri, jose, keys);
  }

  /** The challenge of a refusal: resource_metadata, the required scopes, then the error and its description. */
  challenge(error?: { code: string; description: string }): string {
    const parts = [];
    if (error) parts.push(`error=${quoted(error.code)}`);
    if (this.config.scopes.length > 0) parts.push(`scope=${quoted(this.config.scopes.join(" "))}`);
    parts.push(`resource_metadata=${quoted(this.metadataUrl)}`);
    if (error) parts.push(`error_description=${quoted(error.description)}`);
    return `Bearer ${parts.join(", ")}`;
  }

  wellKnown(path: string): Record<string, unknown> | undefined {
    return this.prmPaths.has(path) ? this.document : undefined;
  }

  async authenticate(authorization: readonly string[] | undefined): Promise<AuthVerdict> {
    const { token, malformed } = bearerToken(authorization);
    if (malformed) {
      return { ok: false, status: 400, challenge: this.challenge({ code: "invalid_request", description: malformed }), message: `Bad request: ${malformed}` };
    }
    if (token === undefined) {
      return { ok: false, status: 401, challenge: this.challenge(), message: "Unauthorized: send an access token (Authorization: Bearer <token>)" };
    }
    let payload: JWTPayload;
    try {
      payload = await this.verify(token);
    } catch (e) {
      if (e instanceof InvalidToken) {
        return { ok: false, status: 401, challenge: this.challenge({ code: "invalid_token", description: e.message }), message: `Unauthorized: ${e.message}` };
      }
      const reason = e instanceof Error ? e.message : String(e);
      return {
        ok: false,
        status: 503,
        challenge: "",
        message: `Service unavailable: the authorization server's keys could not be fetched to check the token (${reason.slice(0, 200)})`,
      };
    }
    const granted = scopesOf(payload);
    const missing = this.config.scopes.filter((s) => !granted.has(s));
    if (missing.length > 0) {
      const description = `the access token lacks the scope ${missing.join(" ")}`;
      return { ok: false, status: 403, challenge: this.challenge({ code: "insufficient_scope", description }), message: `Forbidden: ${description}` };
    }
    const subject = payload.sub!;
    return { ok: true, caller: { owner: `sub:${subject}`, label: subject.length > 100 ? `${subject.slice(0, 100)}...` : subject } };
  }

  /** The token's claims once its signature, issuer, audience and times check out; InvalidToken says what did not. */
  private async verify(token: string): Promise<JWTPayload> {
    const { errors } = this.jose;
    try {
      const { payload } = await this.jose.jwtVerify(token, this.keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: [...ALLOWED_ALGORITHMS],
        clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ["exp"],
      });
      if (typeof payload.sub !== "string" || payload.sub === "") throw new InvalidToken("the access token has no subject (sub)");
      // jose checks only that iat is a number: a token issued in the future is a clock or issuer fault, refused as nbf would be.
      if (typeof payload.iat === "number" && payload.iat > Date.now() / 1000 + CLOCK_SKEW_S)
        throw new InvalidToken("the access token's iat claim is not accepted (issued in the future)");
      return payload;
    } catch (e) {
      if (e instanceof InvalidToken) throw e;
      if (e instanceof errors.JWTExpired) throw new InvalidToken("the access token expired");
      if (e instanceof errors.JWTClaimValidationFailed) throw new InvalidToken(`the access token's ${e.claim} claim is not accepted (${e.reason})`);
      if (e instanceof errors.JOSEAlgNotAllowed)
        throw new InvalidToken(`the access token's signature algorithm is not accepted (allowed: ${ALLOWED_ALGORITHMS.join(", ")})`);
      if (e instanceof errors.JWKSNoMatchingKey) throw new InvalidToken("the access token is signed with a key the authorization server does not publish");
      if (e instanceof errors.JWSSignatureVerificationFailed) throw new InvalidToken("the access token's signature does not verify");
      // The issuer's key set could not be fetched or read: not the token's fault (503 follows).
      if (e instanceof errors.JWKSTimeout || e instanceof errors.JWKSInvalid || e instanceof HttpFailure) throw e;
      if (e instanceof errors.JOSEError && e.code !== "ERR_JOSE_GENERIC") throw new InvalidToken(`the access token is not a valid JWT (${e.code})`);
      if (e instanceof errors.JOSEError) throw e;
      throw new InvalidToken("the access token is not a valid JWT");
    }
  }
}

/** The scopes a token grants: `scope` (space-separated, RFC 9068) or `scp` (a list or a string, as some issuers write). */
export function scopesOf(payload: JWTPayload): Set<string> {
  const out = new Set<string>();
  const add = (v: unknown) => {
    const list: unknown[] = typeof v === "string" ? v.split(/\s+/) : Array.isArray(v) ? v : [];
    for (const s of list) if (typeof s === "string" && s !== "") out.add(s);
  };

  add(payload.scope);
  add(payload.scp);
  return out;
}

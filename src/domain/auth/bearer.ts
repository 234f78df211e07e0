/**
 * Bearer mode (`--auth bearer`): static tokens for a small team, read from CHEMATIC_AUTH_TOKENS_FILE.
 *
 * The file holds no token, only each token's SHA-256, one line per token: `<label> sha256:<64 hex digits>`,
 * with blank lines and `#` comment lines allowed. The label names the caller in the log and owns the
 * canvases it makes. A presented token is hashed and its digest compared with every stored digest with
 * crypto.timingSafeEqual (all of them, whatever matched, so the time says nothing about which one did).
 *
 * SIGHUP re-reads the file (commands.ts): a file that does not parse then keeps the tokens in force and the
 * reason is logged; at start-up the same failure stops the server naming the variable.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { bearerToken, type AuthVerdict, type HttpAuthenticator } from "./types.js";

export const TOKENS_FILE_VARIABLE = "CHEMATIC_AUTH_TOKENS_FILE";
const BEARER_CHALLENGE = 'Bearer realm="chematic-mcp"';

/** A label: what the log names, 1 to 64 letters, digits and . _ @ - (no spaces, so a line splits plainly). */
const LABEL = /^[A-Za-z0-9._@-]{1,64}$/;
const LINE = /^(\S+)\s+sha256:([0-9A-Fa-f]{64})$/;
/** A token file larger than this is refused (a team's tokens take a few kilobytes). */
const MAX_FILE_BYTES = 1024 * 1024;

export class TokenFileError extends Error {}

export interface StoredToken {
  label: string;
  digest: Buffer;
}

/** Parses a token file's text; TokenFileError names the first bad line (by number, never its content past the label). */
export function parseTokenFile(text: string): StoredToken[] {
  const tokens: StoredToken[] = [];
  const labels = new Set<string>();
  const digests = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const m = LINE.exec(line);
    if (!m) throw new TokenFileError(`line ${i + 1} is not '<label> sha256:<64 hex digits>'`);
    const [, label, hex] = m as unknown as [string, string, string];
    if (!LABEL.test(label)) throw new TokenFileError(`line ${i + 1}: the label must be 1 to 64 letters, digits, '.', '_', '@' or '-'`);
    if (labels.has(label)) throw new TokenFileError(`line ${i + 1}: the label ${label} appears twice`);
    const digest = hex.toLowerCase();
    if (digests.has(digest)) throw new TokenFileError(`line ${i + 1}: the digest of ${label} repeats an earlier line's (one token, two labels)`);
    labels.add(label);
    digests.add(digest);
    tokens.push({ label, digest: Buffer.from(digest, "hex") });
  });
  if (tokens.length === 0) throw new TokenFileError("it lists no token, so nobody could connect");
  return tokens;
}

/** Reads and parses the token file; TokenFileError says why it cannot be used. */
export function readTokenFile(path: string): StoredToken[] {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_FILE_BYTES) throw new TokenFileError(`it is larger than ${MAX_FILE_BYTES} bytes`);
    text = bytes.toString("utf8");
  } catch (e) {
    if (e instanceof TokenFileError) throw e;
    throw new TokenFileError(`it cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseTokenFile(text);
}

/** The digest a token file stores for `token` (what `sha256sum` prints for the token without a newline). */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export class BearerAuthenticator implements HttpAuthenticator {
  readonly mode = "bearer" as const;
  private tokens: StoredToken[];

  /** Reads the file at once: TokenFileError when it cannot be used (start-up then stops). */
  constructor(readonly path: string) {
    this.tokens = readTokenFile(path);
  }

  get size(): number {
    return this.tokens.length;
  }

  /**
   * Re-reads the file (SIGHUP). On success the new tokens replace the old ones at once (requests being
   * judged finish with whichever set they started with); on failure the old ones stay and the reason is returned.
   */
  reload(): { ok: true; tokens: number } | { ok: false; reason: string } {
    try {
      this.tokens = readTokenFile(this.path);
      return { ok: true, tokens: this.tokens.length };
    } catch (e) {
      if (e instanceof TokenFileError) return { ok: false, reason: e.message };
      throw e;
    }
  }

  /** The label whose digest matches `token`'s, compared in constant time against every stored digest. */
  match(token: string): string | undefined {
    const digest = createHash("sha256").update(token, "utf8").digest();
    let found: string | undefined;
    for (const stored of this.tokens) {
      if (timingSafeEqual(stored.digest, digest) && found === undefined) found = stored.label;
    }
    return found;
  }

  authenticate(authorization: readonly string[] | undefined): Promise<AuthVerdict> {
    const { token, malformed } = bearerToken(authorization);
    if (malformed)
      return Promise.resolve({ ok: false, status: 400, challenge: `${BEARER_CHALLENGE}, error="invalid_request"`, message: `Bad request: ${malformed}` });
    if (token === undefined) {
      return Promise.resolve({ ok: false, status: 401, challenge: BEARER_CHALLENGE, message: "Unauthorized: send Authorization: Bearer <token>" });
    }
    const label = this.match(token);
    if (label === undefined) {
      return Promise.resolve({
        ok: false,
        status: 401,
        challenge: `${BEARER_CHALLENGE}, error="invalid_token"`,
        message: "Unauthorized: the bearer token is not valid",
      });
    }
    return Promise.resolve({ ok: true, caller: { owner: `token:${label}`, label } });
  }

  wellKnown(): undefined {
    return undefined;
  }
}

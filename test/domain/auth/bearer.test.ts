/**
 * The bearer token file and the constant-time match: the file format (labels, sha256 digests, comments,
 * blank lines), every way a file can be unusable (named by line, never echoing a digest), and the
 * Authorization header forms (no header or another scheme: 401 without an error code; repeated or
 * malformed: 400 invalid_request; a token not listed: 401 invalid_token).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BearerAuthenticator, TokenFileError, parseTokenFile, readTokenFile, tokenDigest } from "../../../src/domain/auth/bearer.js";
import { bearerToken, quoted } from "../../../src/domain/auth/types.js";

const D = (token: string) => tokenDigest(token);

test("a token file: labels and digests, comments and blank lines, digests in either case", () => {
  const tokens = parseTokenFile(`# team tokens\n\nalice sha256:${D("a")}\r\n  bob   sha256:${D("b").toUpperCase()}  \n# end\n`);
  assert.deepEqual(
    tokens.map((t) => [t.label, t.digest.toString("hex")]),
    [
      ["alice", D("a")],
      ["bob", D("b")],
    ],
  );
  // The digest is what `printf %s "$TOKEN" | sha256sum` prints.
  assert.equal(tokenDigest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

test("an unusable file says why, by line number", () => {
  const cases: Array<[string, RegExp]> = [
    ["", /lists no token/],
    ["# only comments\n", /lists no token/],
    ["alice\n", /line 1 is not/],
    [`alice sha1:${D("a")}\n`, /line 1 is not/],
    [`alice sha256:${D("a").slice(1)}\n`, /line 1 is not/],
    [`alice sha256:${D("a")} extra\n`, /line 1 is not/],
    [`al/ice sha256:${D("a")}\n`, /line 1: the label must be/],
    [`alice sha256:${D("a")}\nalice sha256:${D("b")}\n`, /line 2: the label alice appears twice/],
    [`alice sha256:${D("a")}\nbob sha256:${D("a")}\n`, /line 2: the digest of bob repeats/],
  ];
  for (const [text, pattern] of cases)
    assert.throws(
      () => parseTokenFile(text),
      (e: unknown) => e instanceof TokenFileError && pattern.test(e.message),
      text,
    );
  assert.throws(() => readTokenFile("/nonexistent/tokens"), /cannot be read \(ENOENT\)/);
});

test("the Authorization header: absent, another scheme, repeated, malformed, a token", () => {
  assert.deepEqual(bearerToken(undefined), {});
  assert.deepEqual(bearerToken(["Basic YTpi"]), {});
  assert.deepEqual(bearerToken(["Bearer abc.DEF-_~+/="]), { token: "abc.DEF-_~+/=" });
  assert.deepEqual(bearerToken(["bearer   abc  "]), { token: "abc" }, "the scheme is case-insensitive");
  assert.match(bearerToken(["Bearer a", "Bearer b"]).malformed!, /more than once/);
  assert.match(bearerToken(["Bearer"]).malformed!, /not 'Bearer <token>'/);
  assert.match(bearerToken(["Bearer a b"]).malformed!, /not 'Bearer <token>'/);
  assert.equal(quoted('say "hi"\\\n'), '"say \\"hi\\"\\\\ "');
});

test("BearerAuthenticator: listed tokens pass with their label as owner; reload swaps or keeps", async () => {
  const dir = mkdtempSync(join(tmpdir(), "chematic-tokens-"));
  const file = join(dir, "tokens");
  try {
    writeFileSync(file, `alice sha256:${D("token-a")}\nbob sha256:${D("token-b")}\n`);
    const auth = new BearerAuthenticator(file);
    assert.equal(auth.size, 2);
    assert.deepEqual(await auth.authenticate(["Bearer token-b"]), { ok: true, caller: { owner: "token:bob", label: "bob" } });
    const missing = await auth.authenticate(undefined);
    assert.deepEqual([missing.ok, !missing.ok && missing.status, !missing.ok && missing.challenge], [false, 401, 'Bearer realm="chematic-mcp"']);
    const wrong = await auth.authenticate(["Bearer token-c"]);
    assert.deepEqual([wrong.ok, !wrong.ok && wrong.status, !wrong.ok && wrong.challenge], [false, 401, 'Bearer realm="chematic-mcp", error="invalid_token"']);
    const malformed = await auth.authenticate(["Bearer"]);
    assert.equal(!malformed.ok && malformed.status, 400);

    writeFileSync(file, `carol sha256:${D("token-c")}\n`);
    assert.deepEqual(auth.reload(), { ok: true, tokens: 1 });
    assert.equal((await auth.authenticate(["Bearer token-a"])).ok, false);
    assert.equal(auth.match("token-c"), "carol");
    writeFileSync(file, "garbage\n");
    const failed = auth.reload();
    assert.equal(failed.ok, false);
    assert.equal(auth.match("token-c"), "carol", "a broken file keeps the tokens in force");
    assert.equal(auth.wellKnown(), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

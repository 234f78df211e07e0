/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12) against the real
 * Streamable HTTP server with the suite's fixture tools (test/fixtures/conformance-server.ts), once per
 * requirement set: 2026-07-28 (stateless wire) and 2025-11-25 (legacy initialize wire, official v1 SDK
 * client). Each run must exit 0 against its baseline (test/conformance/baseline-*.yml), which lists only
 * capabilities this server does not offer; the suite also fails the run when a listed entry passes.
 *
 * The suite's bundle needs fs.globSync (Node 22+); on Node 20 it runs through the resolve hook in
 * test/fixtures/conformance-shim.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { startConformanceServer } from "../fixtures/conformance-server.js";
import { FakeAuthorizationServer } from "../fixtures/fake-oauth.js";
import { OAuthAuthenticator } from "../../src/domain/auth/oauth.js";
import { globSync } from "../fixtures/conformance-shim/fs-with-globsync.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SUITE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SHIM = fileURLToPath(new URL("../fixtures/conformance-shim/register.js", import.meta.url));
const BASELINES = join(ROOT, "test", "conformance");

function run(args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

for (const revision of ["2026-07-28", "2025-11-25"] as const) {
  test(`conformance suite, --requirements ${revision}: every failure is in the baseline, none is stale`, { timeout: 120_000 }, async (t) => {
    if (!existsSync(SUITE)) {
      t.skip("@modelcontextprotocol/conformance is not installed (it is a devDependency: run npm ci)");
      return;
    }
    const server = await startConformanceServer({
      env: { ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_TEST_TOOLS: "0", CHEMATIC_LOG_LEVEL: "error" },
    });
    const out = mkdtempSync(join(tmpdir(), "chematic-conformance-"));
    try {
      const baseline = join(BASELINES, `baseline-${revision}.yml`);
      const { code, output } = await run(
        ["--import", SHIM, SUITE, "server", "--url", server.url, "--requirements", revision, "--expected-failures", baseline, "-o", out],
        out,
        100_000,
      );
      const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
      t.diagnostic(
        `conformance ${revision}: ${total ? `${total[1]} checks passed, ${total[2]} failed (every failure is in the baseline or in a scenario the suite does not score)` : "no total printed"}`,
      );
      assert.equal(code, 0, `the suite found unexpected failures or stale baseline entries:\n${output.slice(-6000)}`);
      assert.match(output, /Baseline check passed: all failures are expected/);
      // The tool scenarios are the heart of what this server offers: they must run and pass, not be baselined.
      for (const scenario of [
        "tools-list",
        "tools-call-simple-text",
        "tools-call-image",
        "tools-call-error",
        "tools-call-with-progress",
        "dns-rebinding-protection",
        // Prompts (the fixtures beside the shipped ones), in both eras.
        "prompts-list",
        "prompts-get-simple",
        "prompts-get-with-args",
        "prompts-get-embedded-resource",
        "prompts-get-with-image",
      ]) {
        assert.match(output, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`), `${scenario} must pass`);
      }
      if (revision === "2026-07-28") {
        assert.match(output, /✓ server-stateless: \d+ passed, 0 failed/);
        // Not scored by the suite, but every canvas tool declares x-mcp-header: its checks must run and pass.
        assert.match(output, /✓ http-custom-header-server-validation: [1-9]\d* passed, 0 failed/);
        // caching: every cacheable list (prompts/list among them) and resources/read carry ttlMs and cacheScope.
        assert.match(output, /✓ caching: \d+ passed, 0 failed/);
      } else assert.match(output, /✓ server-initialize: \d+ passed, 0 failed/);
    } finally {
      rmSync(out, { recursive: true, force: true });
      await server.close();
    }
  });
}

/**
 * The suite's authorization scenarios (auth/*) test a client against the suite's own resource server, and
 * its authorization-server scenarios an authorization server: none tests a resource server, which is what
 * --auth oauth makes this one (README, "Conformance"). What can be checked is that authentication changes
 * nothing else: the 2026-07-28 run against the server in OAuth mode, through a proxy that adds a valid access
 * token to every request (Host, Origin and every other header passed as sent), must meet the same baseline.
 */
test(
  "conformance suite, --requirements 2026-07-28, with --auth oauth and a valid token on every request: the same baseline",
  { timeout: 120_000 },
  async (t) => {
    if (!existsSync(SUITE)) {
      t.skip("@modelcontextprotocol/conformance is not installed (it is a devDependency: run npm ci)");
      return;
    }
    const as = await new FakeAuthorizationServer().start();
    // The proxy listens first (port 0): its URL is the audience the server is made with.
    const to: { upstream?: URL; token: string } = { token: "" };
    const proxy = createHttpServer((req, res) => {
      const upstream = to.upstream;
      if (upstream === undefined) {
        res.writeHead(503).end();
        return;
      }
      const headers: string[] = [];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
        if (req.rawHeaders[i]!.toLowerCase() !== "authorization") headers.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
      headers.push("Authorization", `Bearer ${to.token}`);
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      });
      forward.on("error", () => res.destroy());
      res.on("close", () => forward.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const audience = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
    const auth = await OAuthAuthenticator.create({ issuer: as.issuer, audience, scopes: [] });
    const server = await startConformanceServer({
      env: { ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_TEST_TOOLS: "0", CHEMATIC_LOG_LEVEL: "error" },
      auth,
    });
    to.token = await as.mint(audience, { sub: "conformance", expIn: 600 });
    to.upstream = new URL(server.url);
    const out = mkdtempSync(join(tmpdir(), "chematic-conformance-auth-"));
    try {
      // Without the token the endpoint is closed: the suite's requests would all be 401.
      const bare = await fetch(server.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      assert.equal(bare.status, 401);
      const baseline = join(BASELINES, "baseline-2026-07-28.yml");
      const { code, output } = await run(
        ["--import", SHIM, SUITE, "server", "--url", audience, "--requirements", "2026-07-28", "--expected-failures", baseline, "-o", out],
        out,
        100_000,
      );
      const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
      t.diagnostic(
        `conformance 2026-07-28 with --auth oauth: ${total ? `${total[1]} checks passed, ${total[2]} failed (all in the baseline)` : "no total printed"}`,
      );
      assert.equal(code, 0, `the suite found unexpected failures or stale baseline entries with --auth oauth:\n${output.slice(-6000)}`);
      for (const scenario of [
        "server-stateless",
        "tools-list",
        "tools-call-with-progress",
        "dns-rebinding-protection",
        "http-header-validation",
        "http-custom-header-server-validation",
      ]) {
        assert.match(output, new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`), `${scenario} must pass with --auth oauth`);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      await server.close();
      await as.stop();
    }
  },
);

test("the globSync shim matches the suite's result-file pattern", () => {
  const dir = mkdtempSync(join(tmpdir(), "chematic-globsync-"));
  try {
    for (const p of ["a/checks.json", "a/b/checks.json", "checks.json", "a/other.json", "a/checks.json.bak"]) {
      mkdirSync(join(dir, p, ".."), { recursive: true });
      writeFileSync(join(dir, p), "[]");
    }
    assert.deepEqual(globSync("**/checks.json", { cwd: dir }).sort(), ["a/b/checks.json", "a/checks.json", "checks.json"]);
    assert.deepEqual(globSync("a/*.json", { cwd: dir }).sort(), ["a/checks.json", "a/other.json"]);
    assert.deepEqual(globSync("?/checks.json", { cwd: dir }), ["a/checks.json"]);
    assert.deepEqual(globSync("**/*.json", { cwd: join(dir, "missing") }), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

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
import { startConformanceServer } from "../fixtures/conformance-server.js";
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
      // caching: every cacheable list (prompts/list among them) and resources/read carry ttlMs and cacheScope.
      if (revision === "2026-07-28") assert.match(output, /✓ server-stateless: \d+ passed, 0 failed/);
      if (revision === "2026-07-28") assert.match(output, /✓ caching: \d+ passed, 0 failed/);
      else assert.match(output, /✓ server-initialize: \d+ passed, 0 failed/);
    } finally {
      rmSync(out, { recursive: true, force: true });
      await server.close();
    }
  });
}

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

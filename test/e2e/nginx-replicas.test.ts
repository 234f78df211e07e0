/**
 * Three replicas behind a real nginx, configured with the README's own block (the text between the
 * `nginx-replicas` markers of README.md, with its TLS lines swapped for a Unix socket and its replica ports
 * for the ones the replicas report, so the README cannot drift from what runs). Every server listens on port 0 and
 * reports its port: the replicas log theirs, and a forwarder (port 0) in front of nginx's socket is the clients' URL. With the official v2 client (alice's and bob's),
 * 20 sequences in parallel through nginx, each a bioactivity spill (the fake ChEMBL), canvas_annotate and a
 * query. Every answer is checked, and every canvas call must reach the replica its ID names
 * (Mcp-Param-Canvas-Id, routed by the README's map): a wrong replica would answer CANVAS_NOT_FOUND. Then one
 * replica is restarted while the other sequences keep working: its canvases answer CANVAS_NOT_FOUND with
 * reason "restarted", and staging again works. The replicas run --auth bearer (two tokens), so ownership
 * holds through nginx too.
 *
 * Needs nginx (`.ci/run` installs it from Debian). Without it the test skips, saying so; with
 * CHEMATIC_REQUIRE_ORACLES=1 (CI) a missing nginx fails it instead, like a missing oracle. nginx listens on
 * a Unix socket only, runs in the foreground with its pid, socket and temporary files in a temporary directory (its
 * log on stderr; `user root;` when the test runs as root), and is always stopped, as are the replicas.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { projectRoot } from "../../src/domain/assets.js";
import { tokenDigest } from "../../src/domain/auth/bearer.js";
import { HttpServerProcess } from "../helpers/http.js";
import { Forwarder } from "../helpers/forward.js";
import { Changes } from "../helpers/wait.js";
import { skipOracle } from "../helpers/oracle.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";

const FLOWS = 20;
const REPLICAS = ["r1", "r2", "r3"] as const;
const TOKENS = { alice: "alice-token-0123456789abcdef0123456789", bob: "bob-token-0123456789abcdef01234567890" };

function findNginx(): string | undefined {
  for (const candidate of ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"]) if (existsSync(candidate)) return candidate;
  try {
    return execFileSync("sh", ["-c", "command -v nginx"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The README's nginx block, between its markers. */
export function readmeNginxBlock(readme: string): string {
  const start = readme.indexOf("<!-- nginx-replicas:start -->");
  const end = readme.indexOf("<!-- nginx-replicas:end -->");
  assert.ok(start >= 0 && end > start, "docs/serving.md has the nginx-replicas block");
  const m = /```nginx\n([\s\S]*?)```/.exec(readme.slice(start, end));
  assert.ok(m, "the block is an nginx code block");
  return m[1]!;
}

/** Replaces `pattern` in `text`, asserting how many times it matched (a README edit the test does not expect fails loudly). */
function substitute(text: string, pattern: RegExp, replacement: string, times: number, what: string): string {
  const found = text.match(new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`))?.length ?? 0;
  assert.equal(found, times, `the README's nginx block: ${what} (${pattern}) found ${found} times, expected ${times}`);
  return text.replace(new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`), replacement);
}

/**
 * A runnable nginx.conf: the README's block, TLS swapped for a Unix socket (`listen`, nginx cannot listen on port 0 and
 * say which port it got; the test's port-0 forwarder stands in front), its ports for ours, inside a minimal main context
 * that logs to stderr at notice level (its "start worker process" line says nginx is listening).
 */
export function nginxConfig(block: string, replicaPorts: readonly number[], listen: string, dir: string, nginxBuild: string): string {
  let conf = substitute(block, /listen 443 ssl;/, `listen ${listen};`, 1, "the TLS listen line");
  conf = substitute(conf, /^\s*ssl_[a-z_]+\s[^\n]*;\n/m, "", 3, "the ssl_ lines");
  replicaPorts.forEach((port, i) => {
    conf = substitute(conf, new RegExp(`127\\.0\\.0\\.1:300${i + 1};`), `127.0.0.1:${port};`, 2, `replica ${i + 1}'s port`);
  });
  // Modules Debian's nginx-light may lack get no temp path directive (it would be an unknown directive).
  const temp = ["fastcgi", "uwsgi", "scgi"]
    .filter((m) => !nginxBuild.includes(`--without-http_${m}_module`))
    .map((m) => `  ${m}_temp_path ${join(dir, m)};`)
    .join("\n");
  return [
    process.getuid?.() === 0 ? "user root;" : "",
    "worker_processes 1;",
    "daemon off;",
    `pid ${join(dir, "nginx.pid")};`,
    "error_log stderr notice;",
    "events { worker_connections 512; }",
    "http {",
    `  access_log ${join(dir, "access.log")};`,
    `  client_body_temp_path ${join(dir, "client_body")};`,
    `  proxy_temp_path ${join(dir, "proxy")};`,
    temp,
    conf,
    "}",
    "",
  ].join("\n");
}

/** VmRSS and VmHWM of a process, in MiB. */
function memoryMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: Math.round(kib("VmRSS") / 1024), peak: Math.round(kib("VmHWM") / 1024) };
}

type ToolResult = { structuredContent?: Record<string, unknown>; isError?: boolean; content?: Array<{ text?: string }> };

function ok(r: ToolResult, what: string): Record<string, unknown> {
  assert.notEqual(r.isError, true, `${what}: ${r.content?.[0]?.text ?? ""}`);
  return r.structuredContent!;
}

function failure(r: ToolResult): { code: string; details: Record<string, unknown> } {
  assert.equal(r.isError, true);
  return r.structuredContent!.error as { code: string; details: Record<string, unknown> };
}

test(
  "three replicas behind nginx with the README's configuration: 20 parallel sequences routed by Mcp-Param-Canvas-Id, one replica restarted",
  { timeout: 180_000 },
  async (t) => {
    const nginx = findNginx();
    if (!nginx) {
      skipOracle(t, "nginx is not installed (apt-get install nginx-light): the multi-replica test needs it");
      return;
    }
    const started = Date.now();
    const dir = mkdtempSync(join(tmpdir(), "chematic-nginx-"));
    for (const sub of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, sub));
    const tokensFile = join(dir, "tokens");
    writeFileSync(
      tokensFile,
      Object.entries(TOKENS)
        .map(([label, token]) => `${label} sha256:${tokenDigest(token)}`)
        .join("\n") + "\n",
    );
    const chembl = await new FakeChembl("new").start();
    const replicaEnv = (i: number): Record<string, string> => ({
      CHEMATIC_REPLICA_ID: REPLICAS[i]!,
      CHEMBL_API_BASE_URL: chembl.baseUrl,
      CHEMATIC_WORKERS: "1",
      CHEMATIC_LOG_LEVEL: "warn",
      CHEMATIC_AUTH_TOKENS_FILE: tokensFile,
    });
    // Each replica listens on port 0 and reports its port; a restarted replica takes the port its first start
    // reported (nginx's upstreams name it), as a replica restarted in production keeps its port.
    const ports: number[] = [];
    const startReplica = (i: number) => new HttpServerProcess(["--port", String(ports[i] ?? 0), "--auth", "bearer"], replicaEnv(i));
    const replicas: HttpServerProcess[] = REPLICAS.map((_, i) => startReplica(i));
    let proxy: ChildProcess | undefined;
    let front: Forwarder | undefined;
    const clients: Client[] = [];
    try {
      ports.push(...(await Promise.all(replicas.map((r) => r.port()))));
      const idle = replicas.map((r) => memoryMiB(r.child.pid!));

      // nginx -V writes its build options to stderr.
      const probe = spawnSync(nginx, ["-V"], { encoding: "utf8" });
      const build = `${probe.stdout}${probe.stderr}`;
      const configFile = join(dir, "nginx.conf");
      const block = readmeNginxBlock(readFileSync(join(projectRoot(), "docs", "serving.md"), "utf8"));
      const socket = join(dir, "nginx.sock");
      writeFileSync(configFile, nginxConfig(block, ports, `unix:${socket}`, dir, build));
      proxy = spawn(nginx, ["-p", dir, "-c", configFile, "-e", "stderr"], { stdio: ["ignore", "ignore", "pipe"] });
      let nginxStderr = "";
      const logged = new Changes();
      proxy.stderr!.setEncoding("utf8").on("data", (d: string) => {
        nginxStderr += d;
        logged.notify();
      });
      proxy.once("exit", () => logged.notify());
      // nginx has bound its socket when its master starts a worker: that log line is the event waited for.
      await logged.until(() => /start worker process/.test(nginxStderr) || proxy!.exitCode !== null, "nginx to start", 15_000).catch(() => {});
      if (!/start worker process/.test(nginxStderr)) assert.fail(`nginx did not start: ${nginxStderr}`);
      front = await Forwarder.start();
      front.target = { path: socket };
      const url = new URL(front.url("/mcp"));

      /** What nginx logged, for a failure's message. */
      const nginxLog = () => nginxStderr.slice(-2000);
      const connectAs = async (token: string) => {
        const client = new Client({ name: "nginx-flow", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
        clients.push(client);
        try {
          await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
          // The client mirrors x-mcp-header parameters from the tool definitions it listed.
          await client.listTools();
        } catch (e) {
          throw new Error(`connecting through nginx failed: ${(e as Error).message.replace(/\s+/g, " ").slice(0, 300)}; nginx error log: ${nginxLog()}`, {
            cause: e,
          });
        }
        return client;
      };
      const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> => {
        try {
          return (await client.callTool({ name, arguments: args })) as ToolResult;
        } catch (e) {
          throw new Error(
            `${name} ${JSON.stringify(args).slice(0, 200)} failed: ${(e as Error).message.replace(/\s+/g, " ").slice(0, 300)}; replicas said: ${replicas.map((r) => r.stderr.slice(-1500)).join(" | ")}; nginx error log: ${nginxLog()}`,
            { cause: e },
          );
        }
      };
      const SQL = "SELECT count(*) AS n, count(heavy_atom_count) AS annotated, sum(heavy_atom_count) AS atoms FROM bioactivities";

      /** A spill, an annotation and a query on the canvas it made: the canvas's ID and replica, and the query's row. */
      const stageAndQuery = async (client: Client) => {
        const spill = ok(await call(client, "chembl_get_bioactivities", { target_chembl_id: "CHEMBL235", limit: 10 }), "spill");
        assert.equal(spill.staged_row_count, 57);
        const canvasId = spill.canvas_id as string;
        const replica = /^cv_(r[123])_/.exec(canvasId)?.[1];
        assert.ok(replica, canvasId);
        const annotated = ok(
          await call(client, "canvas_annotate", {
            canvas_id: canvasId,
            table: "bioactivities",
            smiles_column: "canonical_smiles",
            columns: ["heavy_atom_count"],
          }),
          "annotate",
        );
        assert.deepEqual([annotated.complete, annotated.rows_total], [true, 57]);
        const row = (ok(await call(client, "chembl_dataframe_query", { canvas_id: canvasId, sql: SQL }), "query").rows as Array<Record<string, number>>)[0]!;
        assert.equal(row.n, 57);
        return { canvasId, replica, row };
      };

      // Round 1: 20 sequences in parallel, alice's and bob's in turn, over one client each (a client runs its calls
      // concurrently; a client per sequence would spend the test's time listing tools 20 times).
      const phases: string[] = [`replicas and nginx up at ${((Date.now() - started) / 1000).toFixed(1)} s`];
      const [aliceClient, bobClient] = await Promise.all([connectAs(TOKENS.alice), connectAs(TOKENS.bob)]);
      const flows = await Promise.all(
        Array.from({ length: FLOWS }, async (_, i) => {
          const client = i % 2 === 0 ? aliceClient : bobClient;
          return { client, owner: i % 2 === 0 ? "alice" : "bob", ...(await stageAndQuery(client)) };
        }),
      );
      phases.push(`round 1 done at ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const atoms = new Set(flows.map((f) => f.row.atoms));
      assert.equal(atoms.size, 1, "every sequence computed the same annotation");
      assert.ok((flows[0]!.row.annotated ?? 0) > 0 && ([...atoms][0] ?? 0) > 0);
      const spread = Object.fromEntries(REPLICAS.map((r) => [r, flows.filter((f) => f.replica === r).length]));
      assert.ok(Object.values(spread).filter((n) => n > 0).length >= 2, `the spills were spread over the replicas: ${JSON.stringify(spread)}`);
      const loaded = replicas.map((r) => memoryMiB(r.child.pid!));

      // Routing and ownership together: bob's call on alice's canvas reaches its replica, which answers as for an unknown ID.
      const aliceFlow = flows.find((f) => f.owner === "alice")!;
      const bobFlow = flows.find((f) => f.owner === "bob")!;
      const denied = failure(await call(bobFlow.client, "chembl_dataframe_query", { canvas_id: aliceFlow.canvasId, sql: "SELECT 1" }));
      assert.deepEqual([denied.code, denied.details.reason], ["CANVAS_NOT_FOUND", "unknown"]);

      // Round 2: one replica restarts while the sequences on the others keep working.
      const restarted = flows[0]!.replica;
      const index = REPLICAS.indexOf(restarted as (typeof REPLICAS)[number]);
      const restart = (async () => {
        assert.equal(await replicas[index]!.stop(), 0);
        replicas[index] = startReplica(index);
        await replicas[index].url;
      })();
      await Promise.all(
        flows.map(async (flow) => {
          if (flow.replica !== restarted) {
            const more = ok(
              await call(flow.client, "canvas_annotate", {
                canvas_id: flow.canvasId,
                table: "bioactivities",
                smiles_column: "canonical_smiles",
                columns: ["tpsa"],
              }),
              "annotate on a replica that stayed up",
            );
            assert.equal(more.complete, true);
            const row = (
              ok(
                await call(flow.client, "chembl_dataframe_query", { canvas_id: flow.canvasId, sql: `${SQL.replace(" FROM", ", count(tpsa) AS t FROM")}` }),
                "query",
              ).rows as Array<Record<string, number>>
            )[0]!;
            assert.deepEqual([row.n, row.atoms, row.t], [57, flow.row.atoms, flow.row.annotated]);
            return;
          }
          await restart;
          const gone = failure(await call(flow.client, "chembl_dataframe_query", { canvas_id: flow.canvasId, sql: SQL }));
          assert.deepEqual([gone.code, gone.details.reason], ["CANVAS_NOT_FOUND", "restarted"]);
          // The hint: stage again.
          const again = await stageAndQuery(flow.client);
          assert.equal(again.row.atoms, flow.row.atoms);
        }),
      );
      await restart;
      const wall = Date.now() - started;
      t.diagnostic(`spills per replica: ${JSON.stringify(spread)}; restarted ${restarted}; ${phases.join(", ")}; wall time ${(wall / 1000).toFixed(1)} s`);
      t.diagnostic(
        `replica RSS, MiB (1 worker each): idle ${idle.map((m) => m.rss).join("/")}; after round 1 ${loaded.map((m) => m.rss).join("/")} (peak ${loaded.map((m) => m.peak).join("/")})`,
      );
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      if (proxy && proxy.exitCode === null) {
        const exited = new Promise((resolve) => proxy!.once("exit", resolve));
        proxy.kill("SIGQUIT");
        const timer = setTimeout(() => proxy!.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
      }
      await Promise.allSettled(replicas.map((r) => (r.child.exitCode === null ? r.stop() : Promise.resolve(r.child.exitCode))));
      await front?.close();
      await chembl.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

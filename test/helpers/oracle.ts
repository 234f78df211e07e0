/**
 * The native oracles of the tests. Skipping an oracle comparison (native RDKit, Open Babel, RDKit's data files)
 * when the oracle is not installed: with CHEMATIC_REQUIRE_ORACLES=1 (set by .ci/run) a missing oracle fails the
 * test instead, so CI can never pass by skipping the comparisons; without it a skip stays a skip that names its
 * reason. And the one native RDKit process a test process shares (runOracle, scripts/oracle-server.py), for the
 * comparisons whose inputs are made at run time (RDKit's data files, our own output); native values of fixed
 * inputs are checked-in fixtures instead (oracle-fixtures.ts).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../../src/domain/assets.js";

export function requireOracles(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.CHEMATIC_REQUIRE_ORACLES ?? "").trim().toLowerCase();
  return value === "1" || value === "true" || value === "yes" || value === "on";
}

/** Skips the test, saying why, or fails it when the oracles are required. */
export function skipOracle(t: { skip(message?: string): void }, reason: string): void {
  if (requireOracles()) assert.fail(`CHEMATIC_REQUIRE_ORACLES is set, and an oracle is missing: ${reason}`);
  t.skip(reason);
}

/** The Debian RDKit Python (python3-rdkit 2022.09, with rdkit-data): the native RDKit of every oracle comparison. */
export const PYTHON = "/usr/bin/python3";
const SERVER = join(projectRoot(), "scripts", "oracle-server.py");

/** What to run: a script of scripts/ by file name, a script elsewhere by absolute path, or a program given as text. */
export type OracleTarget = { script: string } | { file: string } | { program: string };

export interface OracleRequest {
  args?: readonly string[];
  /** The program's standard input. */
  input?: string;
  /** Past this the oracle process is killed and the request fails (default 600 s, the slowest comparison's bound). */
  timeoutMs?: number;
}

/** What a run of `python3 script args < input` gives: exit code (null when killed by a signal), stdout, stderr. */
export interface OracleAnswer {
  status: number | null;
  signal: number | null;
  stdout: string;
  stderr: string;
}

interface Pending {
  resolve: (a: OracleAnswer) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * The one native RDKit process of this test process (scripts/oracle-server.py), started at the first request and
 * shared by every comparison after it: requests and answers are JSON lines. It keeps the test process alive only
 * while a request is open, and ends with it.
 */
class OracleProcess {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private chunks: Buffer[] = [];
  private stderrTail = "";

  request(target: OracleTarget, options: OracleRequest = {}): Promise<OracleAnswer> {
    const child = this.child ?? this.start();
    const id = this.nextId++;
    const message = {
      id,
      ...("script" in target
        ? { kind: "script", name: target.script }
        : "file" in target
          ? { kind: "file", path: target.file }
          : { kind: "program", code: target.program }),
      args: options.args ?? [],
      input: options.input ?? "",
    };
    const timeoutMs = options.timeoutMs ?? 600_000;
    return new Promise<OracleAnswer>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(new Error(`the native RDKit oracle gave no answer within ${timeoutMs} ms; stderr: ${this.stderrTail}`)),
        timeoutMs,
      );
      this.pending.set(id, { resolve, reject, timer });
      this.hold(true);
      child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn(PYTHON, [SERVER], { stdio: ["pipe", "pipe", "pipe"] });
    this.child = child;
    this.chunks = [];
    const current = () => this.child === child; // a server given up on (timed out) is no longer listened to
    child.stdout.on("data", (chunk: Buffer) => current() && this.onData(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => (this.stderrTail = (this.stderrTail + text).slice(-4000)));
    child.stdin.on("error", () => {}); // a dead server: reported by "exit" or "error" below
    child.on("error", (e) => current() && this.fail(e));
    child.on(
      "exit",
      (code, signal) => current() && this.fail(new Error(`the native RDKit oracle (${SERVER}) exited (${code ?? signal}); stderr: ${this.stderrTail}`)),
    );
    return child;
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf(10, start)) >= 0) {
      this.chunks.push(chunk.subarray(start, nl));
      const line = Buffer.concat(this.chunks).toString("utf8");
      this.chunks = [];
      start = nl + 1;
      const reply = JSON.parse(line) as OracleAnswer & { id: number };
      const waiting = this.pending.get(reply.id);
      if (waiting === undefined) continue;
      this.pending.delete(reply.id);
      clearTimeout(waiting.timer);
      waiting.resolve({ status: reply.status, signal: reply.signal, stdout: reply.stdout, stderr: reply.stderr });
    }
    if (start < chunk.length) this.chunks.push(chunk.subarray(start));
    if (this.pending.size === 0) this.hold(false);
  }

  /** Open requests keep the event loop alive; an idle server does not. */
  private hold(on: boolean): void {
    const child = this.child;
    if (child === undefined) return;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as Array<{ ref(): void; unref(): void }>) {
      if (on) handle.ref();
      else handle.unref();
    }
  }

  private fail(error: Error): void {
    const child = this.child;
    this.child = undefined;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
  }
}

const shared = new OracleProcess();

/** One request to this test process's native RDKit oracle: runs `target` as `python3 target args < input` would. */
export function runOracle(target: OracleTarget, options: OracleRequest = {}): Promise<OracleAnswer> {
  return shared.request(target, options);
}

/** The oracle's standard output, after checking it exited 0 (its stderr is the assertion's message otherwise). */
export async function oracleOutput(target: OracleTarget, options: OracleRequest = {}): Promise<string> {
  const answer = await runOracle(target, options);
  assert.equal(
    answer.status,
    0,
    `native RDKit oracle failed (${answer.signal === null ? `exit ${answer.status}` : `signal ${answer.signal}`}): ${answer.stderr}`,
  );
  return answer.stdout;
}

/** The oracle's output lines, one JSON value each. */
export async function oracleLines<T>(target: OracleTarget, options: OracleRequest = {}): Promise<T[]> {
  return (await oracleOutput(target, options))
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as T);
}

/**
 * Why the native RDKit oracle cannot run here, or undefined when it can: /usr/bin/python3 must run `imports` (by
 * default `import rdkit`) in the shared oracle process. The answer is kept per `imports`.
 */
export function nativeRDKitMissing(imports = "import rdkit"): Promise<string | undefined> {
  let probe = probes.get(imports);
  if (probe === undefined) {
    probe = existsSync(PYTHON)
      ? runOracle({ program: imports }, { timeoutMs: 60_000 }).then(
          (a) =>
            a.status === 0
              ? undefined
              : `${PYTHON} cannot run ${JSON.stringify(imports)} (Debian package python3-rdkit): ${a.stderr.trim().split("\n").at(-1)}`,
          (e: unknown) => `${PYTHON} cannot start the native RDKit oracle (Debian package python3-rdkit): ${e instanceof Error ? e.message : String(e)}`,
        )
      : Promise.resolve(`${PYTHON} is absent (Debian packages python3 and python3-rdkit)`);
    probes.set(imports, probe);
  }
  return probe;
}
const probes = new Map<string, Promise<string | undefined>>();

/** Where scripts/make-oracle-fixtures.py writes native RDKit's answers to the requests whose inputs are fixed. */
export const ORACLE_FIXTURES = join(projectRoot(), "test", "fixtures", "oracle");

export interface OracleFixture {
  made_by: string;
  /** The native RDKit version that answered. */
  rdkit: string;
  request: { script?: string; program?: string; args: string[]; input: string };
  stdout: string;
}

/**
 * Native RDKit's stdout for a request whose inputs are fixed, from test/fixtures/oracle/<name>.json (no Python
 * needed). `sent` is what the test would send the live oracle: the fixture must answer exactly those args and that
 * input, so a test whose molecules change fails until scripts/make-oracle-fixtures.py is run again.
 */
export function oracleFixture(name: string, sent: { args?: readonly string[]; input?: string }): string {
  const fixture = JSON.parse(readFileSync(join(ORACLE_FIXTURES, `${name}.json`), "utf8")) as OracleFixture;
  assert.deepEqual(
    { args: fixture.request.args, input: fixture.request.input },
    { args: [...(sent.args ?? [])], input: sent.input ?? "" },
    `test/fixtures/oracle/${name}.json answers other inputs than this test sends: change them in scripts/make-oracle-fixtures.py and run it (/usr/bin/python3 scripts/make-oracle-fixtures.py)`,
  );
  return fixture.stdout;
}

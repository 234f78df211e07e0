/** Spawns the real CLI as a child process and speaks raw newline-delimited JSON-RPC to it. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Changes } from "./wait.js";

export const CLI_PATH = fileURLToPath(new URL("../../src/cli.js", import.meta.url));

export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test-client", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * The CLI run to its end, as a person runs a command: exit code, stdout and stderr once both streams have
 * closed. `env` is laid over this process's environment; a run past `timeoutMs` is killed (code null).
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: options.cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export type Message = {
  jsonrpc: string;
  id?: string | number | null;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  params?: Record<string, unknown>;
};

export class ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout line, raw, in order. */
  readonly lines: string[] = [];
  readonly messages: Message[] = [];
  stderr = "";
  private buffer = "";
  private waiters: Array<{ match: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  /** Told of every stdout line and stderr chunk, for until(). */
  private readonly changes = new Changes();
  readonly exited: Promise<number | null>;

  constructor(env: Record<string, string> = {}, args: string[] = []) {
    this.child = spawn(process.execPath, [CLI_PATH, ...args], {
      env: { ...process.env, CHEMATIC_WORKERS: "2", CHEMATIC_LOG_LEVEL: "warn", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.onData(chunk));
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
      this.changes.notify();
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      this.lines.push(line);
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        continue; // tests assert on `lines` that every line parses
      }
      this.messages.push(message);
      const i = this.waiters.findIndex((w) => w.match(message));
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(message);
    }
    this.changes.notify();
  }

  /**
   * Until `check` holds, asked again at each stdout line and stderr chunk (lines, messages and stderr are read by
   * then); a server that exits first, or `timeoutMs` passing, fails the wait.
   */
  async until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    let settled = false;
    const exitedFirst = new Promise<void>((_, reject) => {
      void this.exited.then((code) => {
        if (!settled && !check()) reject(new Error(`the server exited (${code}) before ${what}`));
      });
    });
    try {
      await Promise.race([this.changes.until(check, what, timeoutMs), exitedFirst]);
    } catch (e) {
      throw new Error(`${(e as Error).message}; stderr: ${this.stderr.slice(-2000)}`, { cause: e });
    } finally {
      settled = true;
    }
  }

  sendRaw(data: string | Buffer): void {
    this.child.stdin.write(data);
  }

  send(message: object): void {
    this.sendRaw(`${JSON.stringify(message)}\n`);
  }

  /** Waits for the first message (already received or future) that matches. */
  waitFor(match: (m: Message) => boolean, timeoutMs = 20_000): Promise<Message> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for a message; stderr: ${this.stderr.slice(-2000)}`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  response(id: string | number | null, timeoutMs?: number): Promise<Message> {
    return this.waitFor((m) => m.id === id && m.method === undefined, timeoutMs);
  }

  async request(id: string | number, method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<Message> {
    this.send({ jsonrpc: "2.0", id, method, params });
    return this.response(id, timeoutMs);
  }

  modernCall(id: string | number, name: string, args: Record<string, unknown>, extraMeta: Record<string, unknown> = {}, timeoutMs?: number): Promise<Message> {
    return this.request(id, "tools/call", { _meta: { ...MODERN_META, ...extraMeta }, name, arguments: args }, timeoutMs);
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  kill(): void {
    this.child.kill("SIGKILL");
  }
}

/**
 * A load client for one MCP server process over stdio: newline-delimited JSON-RPC, 2026-07-28 requests,
 * a closed loop with a fixed number of requests in flight, latency measured per request from write to
 * answer. The same client drives our server and the SDK comparison server.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { LineSplitter } from "../../src/transport/stdio.js";
import { MODERN_META } from "./workload.js";

/** Answers are not bounded by the protocol's request limits; this only guards the client against a runaway line. */
const MAX_ANSWER_BYTES = 64 * 2 ** 20;

export interface RpcMessage {
  jsonrpc: "2.0";
  id?: number | string | null;
  method?: string;
  result?: { isError?: boolean; structuredContent?: Record<string, unknown>; [k: string]: unknown };
  error?: { code: number; message: string };
}

export interface LoadResult {
  calls: number;
  seconds: number;
  callsPerSecond: number;
  /** Per-call latency in ms, in completion order. */
  latencies: number[];
  errors: number;
}

/** Resident set size of a process from /proc (Linux); NaN elsewhere. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

export class StdioClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;
  stderr = "";
  private readonly lines = new LineSplitter(
    MAX_ANSWER_BYTES,
    (line) => this.onLine(line.toString("utf8")),
    () => {
      throw new Error(`${this.label}: an answer line over ${MAX_ANSWER_BYTES} bytes`);
    },
  );
  private nextId = 1;
  private readonly waiting = new Map<number, (m: RpcMessage) => void>();

  constructor(
    readonly label: string,
    args: string[],
    env: NodeJS.ProcessEnv = {},
  ) {
    this.child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, CHEMATIC_LOG_LEVEL: "error", ...env } });
    this.child.stdout.on("data", (chunk: Buffer) => this.lines.push(chunk));
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-8_000);
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    this.child.stdin.on("error", () => {}); // a dead child is reported through `exited`
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  rss(): number {
    return rssOf(this.pid);
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    const message = JSON.parse(line) as RpcMessage;
    if (typeof message.id !== "number") return; // notifications
    const resolve = this.waiting.get(message.id);
    if (resolve) {
      this.waiting.delete(message.id);
      resolve(message);
    }
  }

  /** One request; resolves with its answer (never rejects on a JSON-RPC error: the caller checks). */
  request(method: string, params: Record<string, unknown> = {}): Promise<RpcMessage> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, resolve);
      const line = `${JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: MODERN_META, ...params } })}\n`;
      this.child.stdin.write(line, (e) => {
        if (e) reject(new Error(`${this.label}: cannot write: ${e.message}; stderr: ${this.stderr}`));
      });
    });
  }

  call(name: string, args: Record<string, unknown>): Promise<RpcMessage> {
    return this.request("tools/call", { name, arguments: args });
  }

  /** A call that must succeed; returns its structuredContent. */
  async callOk(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const m = await this.call(name, args);
    if (m.error || m.result?.isError) throw new Error(`${this.label}: ${name} failed: ${JSON.stringify(m).slice(0, 500)}`);
    return m.result!.structuredContent ?? {};
  }

  /**
   * `calls` tools/call requests, `inFlight` at a time (a new one leaves as each answer arrives).
   * Every answer is checked: a JSON-RPC error or an isError result counts in `errors`.
   */
  async load(tool: string, argsFor: (i: number) => Record<string, unknown>, calls: number, inFlight: number): Promise<LoadResult> {
    const latencies: number[] = [];
    let errors = 0;
    let started = 0;
    const start = performance.now();
    const lane = async () => {
      while (started < calls) {
        const i = started++;
        const t = performance.now();
        const m = await this.call(tool, argsFor(i));
        latencies.push(performance.now() - t);
        if (m.error || m.result?.isError) errors++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, calls) }, lane));
    const seconds = (performance.now() - start) / 1000;
    return { calls, seconds, callsPerSecond: calls / seconds, latencies, errors };
  }

  /** Closes stdin (the server drains and exits) and waits; kills it after `graceMs`. */
  async close(graceMs = 10_000): Promise<number | null> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

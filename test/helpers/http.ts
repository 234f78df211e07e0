/**
 * HTTP helpers for the Streamable HTTP tests: a plain POST (node:http, one connection per request unless
 * an agent is given), raw bytes over a socket (for what a well-behaved client never sends), the mirrored
 * headers of a 2026-07-28 request, and the CLI started with --transport streamable-http.
 */
import { request as httpRequest, type Agent, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { CLI_PATH, MODERN_META } from "./server-process.js";
import { Changes } from "./wait.js";

export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface PostOptions {
  headers?: Record<string, string | number | string[]>;
  method?: string;
  path?: string;
  agent?: Agent | false;
  timeoutMs?: number;
}

/** Sends one request and reads the whole answer. `body` is sent as is (a string or bytes). */
export function httpSend(url: string, body: string | Buffer | null, options: PostOptions = {}): Promise<HttpReply> {
  const target = new URL(url);
  if (options.path !== undefined) target.pathname = options.path;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number | string[]> = { ...options.headers };
    if (body !== null && !Object.keys(headers).some((k) => k.toLowerCase() === "content-length" || k.toLowerCase() === "transfer-encoding")) {
      headers["Content-Length"] = Buffer.byteLength(body);
    }
    const req = httpRequest(target, { method: options.method ?? "POST", headers, agent: options.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.setTimeout(options.timeoutMs ?? 20_000, () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 20_000} ms`)));
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

/**
 * A value as a conforming client writes it in a mirrored header: as is when it is a plain header-safe value,
 * else the `=?base64?...?=` form of its UTF-8 (also for a value that looks like that form).
 */
function mirroredHeaderValue(value: string): string {
  const plain = value.length > 0 && value === value.trim() && /^[\x20-\x7e\t]*$/.test(value) && !(value.startsWith("=?base64?") && value.endsWith("?="));
  return plain ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/**
 * The headers a conforming 2026-07-28 client sends with `message`, this server's Mcp-Param-Canvas-Id
 * included (every tool declares canvas_id with x-mcp-header Canvas-Id).
 */
export function modernHeaders(message: { method: string; params?: Record<string, unknown> }): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": message.method,
  };
  const name =
    message.method === "resources/read"
      ? message.params?.uri
      : message.method === "tools/call" || message.method === "prompts/get"
        ? message.params?.name
        : undefined;
  if (typeof name === "string") headers["Mcp-Name"] = name;
  const canvas = message.method === "tools/call" ? (message.params?.arguments as Record<string, unknown> | undefined)?.canvas_id : undefined;
  if (typeof canvas === "string") headers["Mcp-Param-Canvas-Id"] = mirroredHeaderValue(canvas);
  return headers;
}

export const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

/** A 2026-07-28 request with its `_meta` and mirrored headers. */
export function modernPost(
  url: string,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  extraHeaders: Record<string, string> = {},
): Promise<HttpReply> {
  const message = { jsonrpc: "2.0", id, method, params: { _meta: MODERN_META, ...params } };
  return httpSend(url, JSON.stringify(message), { headers: { ...modernHeaders(message), ...extraHeaders } });
}

/**
 * Raw bytes on a fresh socket; resolves with what the server sent once it closed the connection, or once it has
 * sent one whole response (head and Content-Length body) that keeps the connection open (no "Connection: close"):
 * a kept-alive connection is not waited out. `waitMs` is the upper bound (then `closed` is false).
 */
export function rawExchange(port: number, data: string | Buffer | null, waitMs = 5_000): Promise<{ text: string; closed: boolean; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1");
    let text = "";
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed, ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => {
      text += d;
      if (wholeKeptAliveResponse(text)) finish(false);
    });
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    if (data !== null) socket.write(data);
  });
}

/** Whether `text` holds one whole response (head, and a body of its Content-Length) that keeps the connection open. */
function wholeKeptAliveResponse(text: string): boolean {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const { headers } = parseRawResponse(text);
  if (headers.connection?.toLowerCase() === "close" || headers["content-length"] === undefined) return false;
  return Buffer.byteLength(text.slice(end + 4), "latin1") >= Number(headers["content-length"]);
}

/** Status line, headers (lower-case names) and body of the first response in a raw exchange. */
export function parseRawResponse(text: string): { status: number; headers: Record<string, string>; body: string } {
  const end = text.indexOf("\r\n\r\n");
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = Number(headers["content-length"] ?? 0);
  const body = end < 0 ? "" : text.slice(end + 4, end + 4 + length);
  return { status: Number(statusLine.split(" ")[1] ?? 0), headers, body };
}

/** The CLI serving HTTP; resolves once it has printed its URL (port 0 unless given). */
export class HttpServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stderr = "";
  readonly exited: Promise<number | null>;
  readonly url: Promise<string>;
  private readonly stderrChanges = new Changes();

  constructor(args: string[] = [], env: Record<string, string> = {}) {
    const withPort = args.includes("--port") ? args : [...args, "--port", "0"];
    this.child = spawn(process.execPath, [CLI_PATH, "--transport", "streamable-http", ...withPort], {
      env: { ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "warn", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stdout.resume();
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    this.url = new Promise((resolve, reject) => {
      this.child.stderr.on("data", (chunk: string) => {
        this.stderr += chunk;
        this.stderrChanges.notify();
        const m = /listening on (http:\/\/\S+)/.exec(this.stderr);
        if (m) resolve(m[1]!);
      });
      void this.exited.then((code) => reject(new Error(`the server exited (${code}) before listening: ${this.stderr}`)));
    });
  }

  async port(): Promise<number> {
    return Number(new URL(await this.url).port);
  }

  /** Until stderr matches, asked at each chunk: a log line is written after its answer is sent, so it may arrive after the answer. */
  async waitForStderr(pattern: RegExp, ms = 10_000): Promise<void> {
    try {
      await this.stderrChanges.until(() => pattern.test(this.stderr), String(pattern), ms);
    } catch {
      throw new Error(`no ${pattern} in ${this.stderr.slice(-1000)}`);
    }
  }

  /** SIGTERM, then the exit code. */
  async stop(): Promise<number | null> {
    this.child.kill("SIGTERM");
    return this.exited;
  }
}

/** A call answered as a stream of events (SSE), read as they arrive. */
export interface StreamedCall {
  /** Each complete event's data, parsed, so far. */
  readonly events: Array<Record<string, unknown>>;
  /** Until `check` holds, asked at each event. */
  until(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** The status once the stream has ended, with every event. */
  readonly done: Promise<{ status: number; events: Array<Record<string, unknown>> }>;
}

/**
 * A 2026-07-28 tools/call with a progress token and an Accept that admits text/event-stream, so the answer is a
 * stream: its progress notifications tell the test when the call is running (an event to wait on), then the result.
 */
export function modernStreamCall(url: string, id: number | string, name: string, args: Record<string, unknown>): StreamedCall {
  const message = { jsonrpc: "2.0", id, method: "tools/call", params: { _meta: { ...MODERN_META, progressToken: `p-${id}` }, name, arguments: args } };
  const body = JSON.stringify(message);
  const events: Array<Record<string, unknown>> = [];
  const changes = new Changes();
  const done = new Promise<{ status: number; events: Array<Record<string, unknown>> }>((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", agent: false, headers: { ...modernHeaders(message), "Content-Length": Buffer.byteLength(body) } }, (res) => {
      let raw = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        raw += d;
        let end: number;
        while ((end = raw.indexOf("\n\n")) >= 0) {
          const data = /^data: (.*)$/m.exec(raw.slice(0, end));
          raw = raw.slice(end + 2);
          if (data) events.push(JSON.parse(data[1]!) as Record<string, unknown>);
        }
        changes.notify();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, events }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
  return { events, done, until: (check, what, timeoutMs) => changes.until(check, what, timeoutMs) };
}

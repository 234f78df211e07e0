/**
 * Local fakes for outbound-HTTP tests, all bound to 127.0.0.1 on random ports: an HTTP(S) origin with a route
 * table, a recording forward proxy (absolute-URI requests and CONNECT tunnels), and a throwaway TLS certificate.
 */
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

export interface FakeServer {
  port: number;
  url: string;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  /** TCP connections the server accepted (kept-alive clients reuse theirs). */
  connections(): number;
  close(): Promise<void>;
}

function listen(server: http.Server | https.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

function closer(server: http.Server | https.Server, sockets: Set<net.Socket>): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

/** An origin server: `handler` answers every request; requests are recorded. */
export async function startOrigin(handler: Handler, tlsOptions?: { key: string; cert: string }): Promise<FakeServer> {
  const requests: FakeServer["requests"] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: body.toString("utf8") });
      handler(req, res, body);
    });
  };
  const server = tlsOptions ? https.createServer(tlsOptions, listener) : http.createServer(listener);
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  server.on("connection", (s: net.Socket) => {
    accepted++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const port = await listen(server);
  return { port, url: `${tlsOptions ? "https" : "http"}://127.0.0.1:${port}`, requests, connections: () => accepted, close: closer(server, sockets) };
}

export interface FakeProxy {
  port: number;
  url: string;
  /** Absolute-URI requests ("GET http://host/path") and CONNECT targets ("CONNECT host:port"). */
  seen: Array<{ method: string; target: string; proxyAuthorization?: string }>;
  /** TCP connections the proxy accepted (kept-alive clients reuse theirs). */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A forward proxy. Every host name resolves to 127.0.0.1 (so tests can use names such as origin.test), and
 * `refuseConnect` answers CONNECT with 407.
 */
export async function startProxy(options: { refuseConnect?: boolean } = {}): Promise<FakeProxy> {
  const seen: FakeProxy["seen"] = [];
  const server = http.createServer((req, res) => {
    const entry: FakeProxy["seen"][number] = { method: req.method ?? "", target: req.url ?? "" };
    if (req.headers["proxy-authorization"]) entry.proxyAuthorization = String(req.headers["proxy-authorization"]);
    seen.push(entry);
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end("not an absolute URI");
      return;
    }
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    const upstream = http.request(
      { host: "127.0.0.1", port: Number(target.port || 80), method: req.method, path: target.pathname + target.search, headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const entry: FakeProxy["seen"][number] = { method: "CONNECT", target: req.url ?? "" };
    if (req.headers["proxy-authorization"]) entry.proxyAuthorization = String(req.headers["proxy-authorization"]);
    seen.push(entry);
    if (options.refuseConnect) {
      client.end("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const port = Number((req.url ?? "").split(":").pop());
    const upstream = net.connect(port, "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  server.on("connection", (s: net.Socket) => {
    accepted++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const port = await listen(server);
  return { port, url: `http://127.0.0.1:${port}`, seen, connections: () => accepted, close: closer(server, sockets) };
}

/** A self-signed certificate for `host` and 127.0.0.1 made with the openssl CLI, or undefined when openssl is absent. */
export function makeCertificate(host: string): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), "chematic-tls-"));
  try {
    const r = spawnSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        `/CN=${host}`,
        "-addext",
        `subjectAltName=DNS:${host},IP:127.0.0.1`,
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { encoding: "utf8" },
    );
    if (r.error !== undefined || r.status !== 0) return undefined;
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

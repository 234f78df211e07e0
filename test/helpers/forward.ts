/**
 * A TCP forwarder on a loopback port of its own (port 0, read back once it listens), for a server whose public URL
 * must be known before the server itself listens: an OAuth audience, nginx's front. The test makes the URL from the
 * forwarder's port, starts the server on port 0 (or nginx on a Unix socket), then points the forwarder at it. Bytes
 * pass unchanged both ways (the Host header stays the forwarder's, as a client of that URL sends it), so no port is
 * ever picked in advance.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";

export type ForwardTarget = { port: number; host?: string } | { path: string };

export class Forwarder {
  /** Where each connection goes; connections that arrive before it is set are closed. */
  target: ForwardTarget | undefined;
  private readonly sockets = new Set<Socket>();

  private readonly server: Server = createServer((client) => this.forward(client));
  /** The port the system gave (the forwarder listens on port 0). */
  port = 0;

  private constructor() {}

  static async start(): Promise<Forwarder> {
    const self = new Forwarder();
    await new Promise<void>((resolve, reject) => {
      self.server.once("error", reject);
      self.server.listen(0, "127.0.0.1", resolve);
    });
    self.port = (self.server.address() as AddressInfo).port;
    return self;
  }

  /** http://127.0.0.1:<port><path> */
  url(path = "/mcp"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  private forward(client: Socket): void {
    const target = this.target;
    if (target === undefined) {
      client.destroy();
      return;
    }
    const upstream = "path" in target ? connect(target.path) : connect(target.port, target.host ?? "127.0.0.1");
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    }
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream).pipe(client);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The contract between the server and its transports. A transport frames bytes (newline-delimited JSON on
 * stdio, one POST per message on HTTP) and nothing more: it is handed an Endpoint, which opens Connections
 * over the one McpServer (a Connection decides the era, pins it and answers), and it gives back a
 * Transport to wait on and to close. stdio opens one Connection for its stream; HTTP one per request.
 */
import type { Logger } from "../logger.js";
import { Connection, type ConnectionOptions } from "./connection.js";
import type { MirroredParam } from "./mirrored-params.js";
import type { McpServer } from "./server.js";

export type { MirroredParam } from "./mirrored-params.js";

export interface Endpoint {
  readonly logger: Logger;
  /** A new connection over the server (its own era pin and legacy version). */
  open(options?: Omit<ConnectionOptions, "logger">): Connection;
  /** The parameters of a tool that a 2026-07-28 client mirrors into Mcp-Param-* headers (HTTP checks them). */
  mirroredParams(tool: string): readonly MirroredParam[];
}

export function endpointOf(server: McpServer, logger: Logger): Endpoint {
  return {
    logger,
    open: (options = {}) => new Connection(server, { ...options, logger }),
    mirroredParams: (tool) => server.registry.mirroredParams(tool),
  };
}

export interface Transport {
  /** Resolves once the transport has stopped serving: stdio at the end of its input with every answer written, HTTP once closed. */
  readonly done: Promise<void>;
  /** Stops taking requests, lets those in flight finish for up to graceMs, then stops. */
  close(graceMs?: number): Promise<void>;
}

/** Wires one server process: configuration, logger, worker pool, registry. Shared by every transport. */
import { loadConfig, type Config } from "./config.js";
import { createLogger, type Logger } from "./logger.js";
import { WorkerPool } from "./server/pool.js";
import { McpServer } from "./server/server.js";
import { allTools } from "./tools/index.js";
import { PACKAGE } from "./version.js";

export interface App {
  config: Config;
  logger: Logger;
  pool: WorkerPool;
  server: McpServer;
  close(): Promise<void>;
}

export function createApp(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): App {
  const config = { ...loadConfig(env), ...overrides };
  const logger = createLogger(env);
  const pool = new WorkerPool({ size: config.workers, maxQueue: config.maxQueue, log: (m) => logger.warn(m) });
  const server = new McpServer({ tools: allTools(env), pool, info: { name: PACKAGE.name, version: PACKAGE.version }, logger });
  return { config, logger, pool, server, close: () => pool.close() };
}

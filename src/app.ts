/** Wires one server process: configuration, logger, worker pool, registry. Shared by every transport. */
import { loadConfig, type Config } from "./config.js";
import { createLogger, type Logger } from "./logger.js";
import { WorkerPool } from "./server/pool.js";
import { McpServer } from "./server/server.js";
import { allTools } from "./tools/index.js";
import { getChemblService, initChemblService } from "./domain/chembl/service.js";
import { chemblResourceProvider } from "./domain/chembl/resources.js";
import { CHEMBL_INSTRUCTIONS } from "./domain/chembl/instructions.js";
import { PACKAGE } from "./version.js";

export interface App {
  config: Config;
  logger: Logger;
  pool: WorkerPool;
  server: McpServer;
  close(): Promise<void>;
}

export interface AppOptions {
  /** Start chemistry workers on the first chemistry call instead of at once (one-shot CLI commands). */
  lazyWorkers?: boolean;
}

export function createApp(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}, options: AppOptions = {}): App {
  const config = { ...loadConfig(env), ...overrides };
  const logger = createLogger(env);
  const pool = new WorkerPool({ size: config.workers, maxQueue: config.maxQueue, lazy: options.lazyWorkers, log: (m) => logger.warn(m) });
  initChemblService(config.chembl);
  const server = new McpServer({
    tools: allTools(env),
    resources: [chemblResourceProvider(getChemblService)],
    instructions: [CHEMBL_INSTRUCTIONS],
    pool,
    info: { name: PACKAGE.name, version: PACKAGE.version },
    logger,
  });
  return { config, logger, pool, server, close: () => pool.close() };
}

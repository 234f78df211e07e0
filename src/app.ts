/** Wires one server process: configuration, logger, worker pool, registry. Shared by every transport. */
import { loadConfig, type Config } from "./config.js";
import { createLogger, type Logger } from "./logger.js";
import { WorkerPool } from "./server/pool.js";
import { McpServer } from "./server/server.js";
import { allTools, selectedToolsets, toolsOutsideSets } from "./tools/index.js";
import { getChemblService, initChemblService } from "./domain/chembl/service.js";
import { chemblResourceProvider } from "./resources/chembl.js";
import { CHEMBL_INSTRUCTIONS } from "./domain/chembl/instructions.js";
import { initCanvasManager, type CanvasManager } from "./domain/canvas/manager.js";
import type { RowStager } from "./server/answer-cap.js";
import { CANVAS_INSTRUCTIONS } from "./domain/canvas/instructions.js";
import { SKILL_NAME, loadSkillTree } from "./domain/skills/skills.js";
import { skillResourceProvider } from "./resources/skills.js";
import { exportResourceProvider } from "./resources/exports.js";
import { appResourceProvider } from "./resources/apps.js";
import { allPrompts } from "./prompts/index.js";
import { projectRoot } from "./domain/assets.js";
import { join } from "node:path";
import { PACKAGE } from "./version.js";
import { TOOLSETS } from "./contract/tool.js";

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
  /** The folder holding the published skills (default: skills/ at the project root). */
  skillsDir?: string;
}

export function createApp(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}, options: AppOptions = {}): App {
  const config = { ...loadConfig(env), ...overrides };
  const logger = createLogger(env);
  // CHEMATIC_TOOLSETS is read before anything starts: an unknown set stops start-up (ConfigError, exit 2).
  const toolsets = selectedToolsets(env);
  // Read before anything starts: a missing or unreadable skills folder stops start-up (ConfigError).
  const skills = loadSkillTree(options.skillsDir ?? join(projectRoot(), "skills"));
  const pool = new WorkerPool({
    size: config.workers,
    maxQueue: config.maxQueue,
    lazy: options.lazyWorkers,
    log: (m) => logger.warn(m),
    // Whatever a worker prints becomes a log event (one JSON line each with CHEMATIC_LOG_FORMAT=json).
    output: (line) => logger.warn("chemistry worker output", { text: line }),
  });
  initChemblService(config.chembl);
  // The DuckDB binding loads on the first spill; without it the canvas is off and start-up goes on.
  const canvas = initCanvasManager(config.canvas, { log: (m) => logger.warn(m) });
  const tools = allTools(env, { dataframeDrop: config.canvas.dropEnabled });
  // Switched off: the tools of the sets left out (named by CHEMATIC_TOOLSETS), and chembl_dataframe_drop unless
  // CHEMBL_DATAFRAME_DROP_ENABLED (when its canvas set is kept; else the sets are what to change first).
  const disabledTools = toolsOutsideSets(tools, toolsets);
  if (!config.canvas.dropEnabled) {
    disabledTools.push(
      toolsets.includes("canvas")
        ? { name: "chembl_dataframe_drop", setting: "CHEMBL_DATAFRAME_DROP_ENABLED", value: "true" }
        : { name: "chembl_dataframe_drop", setting: "CHEMATIC_TOOLSETS", value: TOOLSETS.filter((s) => s === "canvas" || toolsets.includes(s)).join(",") },
    );
  }
  // The apps of the tools listed (the sets chosen), by the resource their tools name.
  const listedApps = new Set(tools.filter((t) => toolsets.some((set) => t.toolset === set || t.alsoIn?.includes(set)) && t.ui).map((t) => t.ui!.resourceUri));
  const appProvider = appResourceProvider((uri) => listedApps.has(uri));
  const server = new McpServer({
    tools,
    // chembl:// reads ChEMBL as the chembl tools do: not served when their set is left out. The skill's
    // workflows chain the ChEMBL and canvas tools: served while either set is.
    resources: [
      ...(toolsets.includes("chembl") ? [chemblResourceProvider(getChemblService)] : []),
      ...(toolsets.includes("chembl") || toolsets.includes("canvas") ? [skillResourceProvider(skills)] : []),
      // canvas_export's files, where it is listed and has a directory.
      ...(toolsets.includes("canvas") && config.canvas.exportDir ? [exportResourceProvider(() => canvas)] : []),
      // The MCP Apps' pages, where they were built (npm run build) and not switched off.
      ...(appProvider && config.apps !== "off" ? [appProvider] : []),
    ],
    apps: config.apps,
    prompts: allPrompts(skills.get(`${SKILL_NAME}/SKILL.md`)!.text),
    // The paragraphs about the ChEMBL chains and the canvas only where those tools are listed.
    instructions: [...(toolsets.includes("chembl") ? [CHEMBL_INSTRUCTIONS] : []), ...(toolsets.includes("canvas") ? [CANVAS_INSTRUCTIONS] : [])],
    pool,
    info: { name: PACKAGE.name, version: PACKAGE.version },
    logger,
    disabledTools,
    // An answer too large for a host is staged on a canvas of the caller's, where the canvas tools can read it.
    stageRows: toolsets.includes("canvas") ? canvasRowStager(canvas) : undefined,
  });
  return { config, logger, pool, server, close: () => Promise.all([pool.close(), canvas.close()]).then(() => undefined) };
}

/**
 * Stages an oversize answer's rows (server/answer-cap.ts) on one canvas per caller, made for such answers on the
 * first and reused while it lives: a caller's long lists then hold one canvas slot, not one each, and never push
 * another caller's canvases out. Each answer gets its own table (calc_properties_results, then _2, _3...);
 * DuckDB missing, the canvas full or a failure refuses it, and the answer is cut instead.
 */
function canvasRowStager(canvas: CanvasManager): RowStager {
  const answerCanvases = new Map<string | null, string>();
  return async ({ table, columns, rows, provenance, owner, signal }) => {
    if (!(await canvas.available())) throw canvas.disabledError();
    const key = owner ?? null;
    const known = answerCanvases.get(key);
    const existing = known === undefined ? undefined : await canvas.get(known, key).catch(() => undefined);
    if (existing) {
      let name = table;
      for (let n = 2; existing.tables.has(name); n++) name = `${table.slice(0, 58)}_${n}`;
      const meta = await existing.stage(name, columns, rows, provenance, signal);
      return { canvasId: existing.id, table: meta.name };
    }
    const staged = await canvas.stageOnNewCanvas(table, columns, rows, provenance, signal, key);
    answerCanvases.set(key, staged.canvas.id);
    return { canvasId: staged.canvas.id, table: staged.table.name };
  };
}

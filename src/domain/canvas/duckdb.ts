/**
 * The DuckDB binding, loaded on first use with a dynamic import inside try/catch: a platform without the
 * native binding (or a bundle that strips it) runs with the canvas off instead of failing to start.
 * Only types are imported statically (erased at compile time).
 */
import type * as DuckDbApi from "@duckdb/node-api";

export type DuckDbModule = typeof DuckDbApi;

export type DuckDbLoader = () => Promise<DuckDbModule>;

/** The real loader: `@duckdb/node-api` and its native binding. */
export const loadDuckDb: DuckDbLoader = async () => {
  const mod = (await import("@duckdb/node-api")) as DuckDbModule & { default?: DuckDbModule };
  // The package is CommonJS: its named exports may sit on the default export only.
  const api = typeof mod.DuckDBInstance === "function" ? mod : mod.default;
  if (!api || typeof api.DuckDBInstance !== "function") throw new Error("@duckdb/node-api did not export DuckDBInstance");
  return api;
};

/**
 * The instance options every canvas opens with. Order matters: DuckDB applies them in turn, so the temp
 * directory comes before external access is switched off, and the configuration is locked last.
 *  - enable_external_access=false: no file, network or extension access from SQL (read_csv, COPY, ATTACH
 *    of a file, INSTALL, LOAD, replacement scans of paths);
 *  - autoinstall/autoload of known extensions off, community extensions off;
 *  - memory_limit and threads bound what one canvas may take;
 *  - lock_configuration=true: SET and RESET cannot change any of this afterwards.
 * An in-memory canvas gets no temp directory (nothing is ever written to disk); a file-backed one keeps
 * DuckDB's default, a `.tmp` directory beside its database file inside CHEMATIC_CANVAS_DIR.
 */
export function lockedDownOptions(opts: { memoryLimitMb: number; threads: number; inMemory: boolean }): Record<string, string> {
  const options: Record<string, string> = {};
  if (opts.inMemory) options.temp_directory = "";
  Object.assign(options, {
    enable_external_access: "false",
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
    allow_community_extensions: "false",
    allow_unsigned_extensions: "false",
    allow_persistent_secrets: "false",
    memory_limit: `${opts.memoryLimitMb}MB`,
    threads: String(opts.threads),
    lock_configuration: "true",
  });
  return options;
}

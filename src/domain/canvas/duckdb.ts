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

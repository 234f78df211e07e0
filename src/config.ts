/** Environment configuration, parsed strictly: a bad value stops start-up naming the variable. */
import { availableParallelism } from "node:os";

export class ConfigError extends Error {}

export function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === "") return fallback;
  const v = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name} must be a boolean (true/false/1/0/yes/no/on/off), got "${value}"`);
}

export function parseInteger(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value.trim())) throw new ConfigError(`${name} must be a whole number, got "${value}"`);
  const n = Number(value.trim());
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export interface Config {
  /** Chemistry worker threads (CHEMATIC_WORKERS, default: available cores). */
  workers: number;
  /** Calls that may wait for a worker before BUSY (CHEMATIC_MAX_QUEUE, default 256). */
  maxQueue: number;
  /** The ChEMBL upstream (CHEMBL_* and CHEMATIC_OFFLINE). */
  chembl: ChemblConfig;
}

export const CHEMBL_DEFAULT_BASE_URL = "https://www.ebi.ac.uk/chembl/api/data";

export interface ChemblConfig {
  /** CHEMBL_API_BASE_URL: the data API root (a mirror or a test server), no trailing slash. */
  apiBaseUrl: string;
  /** CHEMBL_REQUEST_TIMEOUT_MS (30000): one upstream request. */
  requestTimeoutMs: number;
  /** CHEMBL_DEADLINE_MS (45000): one tool call or resource read, retries and chained requests included. */
  deadlineMs: number;
  /** CHEMBL_MAX_CONCURRENT_PAGES (4): upstream requests in flight at once, service-wide. */
  maxConcurrentPages: number;
  /** CHEMATIC_OFFLINE: every networked tool answers OFFLINE. */
  offline: boolean;
}

export function loadChemblConfig(env: NodeJS.ProcessEnv = process.env): ChemblConfig {
  const raw = env.CHEMBL_API_BASE_URL?.trim() || CHEMBL_DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`CHEMBL_API_BASE_URL must be an http(s) URL, got "${raw}"`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`CHEMBL_API_BASE_URL must be an http(s) URL without query, fragment or credentials, got "${raw}"`);
  }
  return {
    apiBaseUrl: url.href.replace(/\/+$/, ""),
    requestTimeoutMs: parseInteger("CHEMBL_REQUEST_TIMEOUT_MS", env.CHEMBL_REQUEST_TIMEOUT_MS, 30_000, 50, 300_000),
    deadlineMs: parseInteger("CHEMBL_DEADLINE_MS", env.CHEMBL_DEADLINE_MS, 45_000, 100, 54_000),
    maxConcurrentPages: parseInteger("CHEMBL_MAX_CONCURRENT_PAGES", env.CHEMBL_MAX_CONCURRENT_PAGES, 4, 1, 16),
    offline: parseBoolean("CHEMATIC_OFFLINE", env.CHEMATIC_OFFLINE, false),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    workers: parseInteger("CHEMATIC_WORKERS", env.CHEMATIC_WORKERS, Math.max(1, availableParallelism()), 1, 256),
    maxQueue: parseInteger("CHEMATIC_MAX_QUEUE", env.CHEMATIC_MAX_QUEUE, 256, 0, 100_000),
    chembl: loadChemblConfig(env),
  };
}

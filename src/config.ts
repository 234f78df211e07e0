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
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    workers: parseInteger("CHEMATIC_WORKERS", env.CHEMATIC_WORKERS, Math.max(1, availableParallelism()), 1, 256),
    maxQueue: parseInteger("CHEMATIC_MAX_QUEUE", env.CHEMATIC_MAX_QUEUE, 256, 0, 100_000),
  };
}

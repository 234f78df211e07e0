/**
 * Operator diagnostics on stderr (stdout carries protocol only). Levels by CHEMATIC_LOG_LEVEL
 * (error, warn, info, debug; default info); CHEMATIC_LOG_FORMAT=json writes one JSON object a line
 * ({time, level, msg, ...fields}), text (the default) writes `chematic-mcp <level>: <msg> key=value ...`.
 * Both variables are parsed strictly: a bad value is a ConfigError naming the variable (exit 2).
 */
import { ConfigError } from "./config.js";

const LEVELS = { error: 0, warn: 1, info: 2, debug: 3 } as const;
export type LogLevel = keyof typeof LEVELS;
export const LOG_LEVELS = Object.keys(LEVELS) as LogLevel[];

export const LOG_FORMATS = ["text", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  /**
   * A line written whatever the level (the start line of an HTTP server, which names the URL an operator
   * needs even at CHEMATIC_LOG_LEVEL=error). Text: `chematic-mcp: <msg> key=value ...`; JSON: level "notice".
   */
  notice(message: string, fields?: Record<string, unknown>): void;
}

export function parseLogLevel(value: string | undefined): LogLevel {
  if (value === undefined || value.trim() === "") return "info";
  const v = value.trim().toLowerCase();
  if (v in LEVELS) return v as LogLevel;
  throw new ConfigError(`CHEMATIC_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${value}"`);
}

export function parseLogFormat(value: string | undefined): LogFormat {
  if (value === undefined || value.trim() === "") return "text";
  const v = value.trim().toLowerCase();
  if ((LOG_FORMATS as readonly string[]).includes(v)) return v as LogFormat;
  throw new ConfigError(`CHEMATIC_LOG_FORMAT must be one of ${LOG_FORMATS.join(", ")}, got "${value}"`);
}

export function createLogger(env: NodeJS.ProcessEnv = process.env, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const threshold = LEVELS[parseLogLevel(env.CHEMATIC_LOG_LEVEL)];
  const json = parseLogFormat(env.CHEMATIC_LOG_FORMAT) === "json";
  const line = (level: LogLevel | "notice", message: string, fields: Record<string, unknown>) => {
    if (json) {
      write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`);
    } else {
      const extra = Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join(" ");
      write(`chematic-mcp${level === "notice" ? "" : ` ${level}`}: ${message}${extra ? ` ${extra}` : ""}\n`);
    }
  };
  const emit =
    (level: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (LEVELS[level] <= threshold) line(level, message, fields);
    };
  return {
    error: emit("error"),
    warn: emit("warn"),
    info: emit("info"),
    debug: emit("debug"),
    notice: (message, fields = {}) => line("notice", message, fields),
  };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {}, notice() {} };

/**
 * Operator diagnostics on stderr (stdout carries protocol only). Levels by CHEMATIC_LOG_LEVEL
 * (error, warn, info, debug; default info); CHEMATIC_LOG_FORMAT=json writes one JSON object a line.
 */
const LEVELS = { error: 0, warn: 1, info: 2, debug: 3 } as const;
export type LogLevel = keyof typeof LEVELS;

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

export function parseLogLevel(value: string | undefined): LogLevel {
  const v = (value ?? "info").toLowerCase();
  if (v in LEVELS) return v as LogLevel;
  throw new Error(`CHEMATIC_LOG_LEVEL must be one of ${Object.keys(LEVELS).join(", ")} (got "${value}")`);
}

export function createLogger(env: NodeJS.ProcessEnv = process.env, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const threshold = LEVELS[parseLogLevel(env.CHEMATIC_LOG_LEVEL)];
  const json = (env.CHEMATIC_LOG_FORMAT ?? "text").toLowerCase() === "json";
  const emit = (level: LogLevel) => (message: string, fields: Record<string, unknown> = {}) => {
    if (LEVELS[level] > threshold) return;
    if (json) {
      write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`);
    } else {
      const extra = Object.entries(fields)
        .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join(" ");
      write(`chematic-mcp ${level}: ${message}${extra ? ` ${extra}` : ""}\n`);
    }
  };
  return { error: emit("error"), warn: emit("warn"), info: emit("info"), debug: emit("debug") };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

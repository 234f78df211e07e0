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

/** Control characters (line breaks above all) that would let a logged value start a line of its own. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/gu;

/** A message with its control characters written as JSON escapes: one log entry is always one line. */
function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => (c === "\n" ? "\\n" : c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

/** A string field written bare in the text format: one token with no space, quote, backslash, `=` or control character. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const PLAIN_TOKEN = /^[^\s"\\=\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/u;

/**
 * A string field in the text format: bare when it is one plain token, otherwise JSON-quoted. Values can come
 * from callers (a tool name, an OAuth subject): quoted, a space or a line break inside one cannot pass for
 * another field or another log line.
 */
function textValue(value: string): string {
  return PLAIN_TOKEN.test(value) ? value : escapeControls(JSON.stringify(value));
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
        .map(([k, v]) => `${k}=${typeof v === "string" ? textValue(v) : JSON.stringify(v)}`)
        .join(" ");
      write(`chematic-mcp${level === "notice" ? "" : ` ${level}`}: ${escapeControls(message)}${extra ? ` ${extra}` : ""}\n`);
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

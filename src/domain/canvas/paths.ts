/**
 * Path guards for file-backed canvases. Every file path the canvas uses is derived from the configured
 * directory (already a real, absolute path: see parseCanvasDir) and a name this module checks: a name is
 * one path segment of letters, digits, '_', '-' and at most one '.'-suffix, never '.', '..' or a separator,
 * and the joined path must resolve inside the base. Canvas IDs reach the file system only through here,
 * and only after matching CANVAS_ID_PATTERN.
 */
import { isAbsolute, resolve, sep } from "node:path";

const SAFE_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9]+){0,2}$/;

export class PathGuardError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PathGuardError";
  }
}

/** base + name, or PathGuardError when the name is not one plain segment or the result leaves base. */
export function safeJoin(base: string, name: string): string {
  if (!isAbsolute(base)) throw new PathGuardError("the base directory must be absolute");
  if (!SAFE_NAME.test(name)) throw new PathGuardError(`"${name}" is not a plain file name`);
  const root = resolve(base);
  const joined = resolve(root, name);
  if (!isInside(root, joined)) throw new PathGuardError(`"${name}" leaves ${root}`);
  return joined;
}

/** Whether `path` is strictly inside `root` (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  const r = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(r) && path.length > r.length;
}

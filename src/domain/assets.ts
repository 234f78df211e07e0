/**
 * Locates files under the repository's `assets/` directory from compiled or source code alike
 * (build/src/domain/... or src/domain/...): walks up from this module until a directory has `assets/<name>`.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The nearest ancestor of this module that holds `marker` (a relative path), or undefined. */
function findUp(marker: string): string | undefined {
  let dir = here;
  for (;;) {
    if (existsSync(join(dir, marker))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The project root: the nearest ancestor directory that contains `assets/`. */
export function projectRoot(): string {
  const root = findUp("assets");
  if (root === undefined) throw new Error(`No 'assets' directory found above ${here}`);
  return root;
}

/** Absolute path of `assets/<name>`; throws when no ancestor directory has that file. */
export function assetPath(name: string): string {
  const root = findUp(join("assets", name));
  if (root === undefined) throw new Error(`Asset '${name}' not found in any 'assets' directory above ${here}`);
  return join(root, "assets", name);
}

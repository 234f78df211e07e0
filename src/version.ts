/** The package's own name and version, read once from package.json (found by walking up from this file). */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findPackageJson(): { name: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "chematic-mcp" && pkg.version) return { name: pkg.name, version: pkg.version };
    }
    const parent = dirname(dir);
    if (parent === dir) return { name: "chematic-mcp", version: "0.0.0" };
    dir = parent;
  }
}

export const PACKAGE = findPackageJson();

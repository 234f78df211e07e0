// Part of `npm pack` (prepack, after the package build): deletes compiled files under build/src whose
// TypeScript source no longer exists (a renamed or removed module), so that the package never ships them.
// Only build/src is touched; build/test and build/bench belong to the development build.
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { URL, fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, "build", "src");

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

let removed = 0;
if (existsSync(out)) {
  for (const file of walk(out)) {
    const rel = relative(out, file).replace(/\.js(\.map)?$/, ".ts");
    if (!existsSync(join(root, "src", rel))) {
      rmSync(file);
      removed++;
      console.error(`prune-stale-build: removed build/src/${relative(out, file)} (no src/${rel})`);
    }
  }
}
if (removed === 0) console.error("prune-stale-build: build/src has no stale files");

/**
 * Where a dump's structure index lives: beside the dump, else in the cache directory, the places the
 * lookup sidecar takes (sqlite/source.ts), and which of them holds a usable one.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { sidecarCacheDir } from "../sqlite/source.js";
import { dumpStamp, readHeader, staleReason, type IndexHeader, type StructureIndexStatus } from "./format.js";

/** The file name of a dump's structure index. */
function structureIndexName(dump: string): string {
  return `${basename(dump)}.chematic-structures`;
}

/** Where the index may live, in order: beside the dump, then the cache directory (as the lookup sidecar). */
export function structureIndexCandidates(dump: string, cacheDir: string): string[] {
  return [join(dirname(dump), structureIndexName(dump)), join(cacheDir, structureIndexName(dump))];
}

/**
 * Finds the dump's index among its places (beside the dump, then `cacheDir`: the lookup sidecar's cache
 * directory by default): a fresh one wins; otherwise the first stale one is reported (with why); otherwise
 * missing. Cheap (a stat and a header read per place), so every search looks again.
 */
export function locateStructureIndex(dump: string, release: string | null, cacheDir: string = sidecarCacheDir()): StructureIndexStatus {
  const stamp = dumpStamp(dump, release);
  let stale: StructureIndexStatus | undefined;
  for (const path of structureIndexCandidates(dump, cacheDir)) {
    if (!existsSync(path)) continue;
    let header: IndexHeader;
    try {
      header = readHeader(path);
    } catch (e) {
      stale ??= { state: "stale", path, size_bytes: statSync(path).size, reason: `unreadable: ${(e as Error).message}` };
      continue;
    }
    const facts = { path, size_bytes: statSync(path).size, count: header.count, skipped: header.skipped, built_at: header.built_at };
    const reason = staleReason(header, stamp);
    if (reason === null) return { state: "present", ...facts, header };
    stale ??= { state: "stale", ...facts, reason };
  }
  return stale ?? { state: "missing", path: null };
}

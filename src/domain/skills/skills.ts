/**
 * The published chembl-guide skill tree: skills/chembl-guide/ is read once at start-up into memory (the
 * skill:// resources in src/resources/skills.ts only ever look a path up in that map, so no URI can reach
 * a file outside the tree, or any file at all after start-up). A missing or unreadable tree stops start-up
 * with a ConfigError naming it.
 * Start-up refuses symlinks, names outside [A-Za-z0-9._-], more than MAX_FILES files and files over
 * MAX_FILE_BYTES, so what is served is exactly what ships.
 */
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../config.js";

export const SKILL_NAME = "chembl-guide";
const MAX_FILES = 64;
const MAX_FILE_BYTES = 256 * 1024;
const MAX_DEPTH = 4;
/** A file or folder name the tree may hold (and a skill:// path segment may name). */
export const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const MIME: Record<string, string> = { md: "text/markdown", txt: "text/plain", sql: "application/sql", json: "application/json" };

export interface SkillFile {
  /** Path inside the skills folder, e.g. chembl-guide/references/sql-recipes.md. */
  path: string;
  mimeType: string;
  text: string;
}

function mimeOf(name: string): string | undefined {
  const ext = /\.([a-z]+)$/i.exec(name)?.[1]?.toLowerCase();
  return ext ? MIME[ext] : undefined;
}

/** Reads skills/<skill>/ into memory; throws ConfigError with a message an operator can act on. */
export function loadSkillTree(skillsDir: string, skill = SKILL_NAME): Map<string, SkillFile> {
  const root = join(skillsDir, skill);
  const files = new Map<string, SkillFile>();
  const fail = (why: string): never => {
    throw new ConfigError(`the skills folder is missing or unreadable: ${root} (${why}); reinstall chematic-mcp or restore skills/${skill}/`);
  };
  const walk = (dir: string, rel: string[], depth: number): void => {
    if (depth > MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH} levels`);
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      return fail((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    }
    for (const name of names) {
      if (!SAFE_SEGMENT.test(name)) fail(`unexpected name ${JSON.stringify(name)}`);
      const full = join(dir, name);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) fail(`${[...rel, name].join("/")} is a symbolic link`);
      if (stat.isDirectory()) {
        walk(full, [...rel, name], depth + 1);
        continue;
      }
      if (!stat.isFile()) fail(`${[...rel, name].join("/")} is not a regular file`);
      const mimeType = mimeOf(name);
      if (!mimeType) fail(`${[...rel, name].join("/")} has an unexpected extension`);
      if (stat.size > MAX_FILE_BYTES) fail(`${[...rel, name].join("/")} is larger than ${MAX_FILE_BYTES} bytes`);
      if (files.size >= MAX_FILES) fail(`more than ${MAX_FILES} files`);
      let text: string;
      try {
        text = readFileSync(full, "utf8");
      } catch (e) {
        return fail((e as NodeJS.ErrnoException).code ?? (e as Error).message);
      }
      const path = [skill, ...rel, name].join("/");
      files.set(path, { path, mimeType: mimeType!, text });
    }
  };
  try {
    if (!lstatSync(root).isDirectory()) fail("not a directory");
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    fail((e as NodeJS.ErrnoException).code ?? (e as Error).message);
  }
  walk(root, [], 0);
  if (!files.has(`${skill}/SKILL.md`)) fail("SKILL.md is missing");
  return files;
}

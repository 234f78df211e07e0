/**
 * The published chembl-guide skill as MCP resources: skill://chembl-guide/SKILL.md and the template
 * skill://{+path} for its references. The tree skills/chembl-guide/ is read once at start-up into memory;
 * a read only ever looks a path up in that map, so no URI can reach a file outside the tree (or any file
 * at all after start-up). A missing or unreadable tree stops start-up with a ConfigError naming it.
 * Start-up refuses symlinks, names outside [A-Za-z0-9._-], more than MAX_FILES files and files over
 * MAX_FILE_BYTES, so what is served is exactly what ships.
 */
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../config.js";
import { ToolError } from "../errors.js";
import type { ResourceContents, ResourceEntry, ResourceProvider, ResourceTemplate } from "../../contract/resource.js";

export const SKILL_NAME = "chembl-guide";
export const SKILL_BUDGET_MS = 5_000;
/** The skill changes only with a release. */
export const SKILL_TTL_MS = 3_600_000;
const MAX_FILES = 64;
const MAX_FILE_BYTES = 256 * 1024;
const MAX_DEPTH = 4;
const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

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

/**
 * The tree path a skill:// URI names, or null: every segment percent-decoded and checked on its own (no
 * empty, "." or ".." segment, no encoded separator, no control character), no query or fragment.
 */
export function skillPathOf(uri: string): string | null {
  const m = /^skill:\/\/([^?#]*)$/i.exec(uri);
  if (!m) return null;
  const raw = m[1]!;
  if (raw === "" || raw.startsWith("/") || raw.endsWith("/")) return null;
  const segments: string[] = [];
  for (const part of raw.split("/")) {
    let seg: string;
    try {
      seg = decodeURIComponent(part);
    } catch {
      return null;
    }
    if (!SAFE_SEGMENT.test(seg)) return null;
    segments.push(seg);
  }
  return segments.join("/");
}

export function skillResourceProvider(files: ReadonlyMap<string, SkillFile>): ResourceProvider {
  const entries: ResourceEntry[] = [...files.values()].map((f) => ({
    uri: `skill://${f.path}`,
    name: f.path.replace(/[/.]/g, "-"),
    title: f.path.endsWith("/SKILL.md") ? "ChEMBL guide (agent skill)" : `ChEMBL guide: ${f.path.split("/").slice(1).join("/")}`,
    description: f.path.endsWith("/SKILL.md")
      ? "How to use the chembl_* tools well: pin a protein to its single-protein target, rank without mixing mutants, salts or repeats, read selectivity with the inactives, check assay provenance and approval; links its references."
      : "A reference of the chembl-guide skill (SQL recipes for the staged bioactivity tables).",
    mimeType: f.mimeType,
  }));
  const templates: ResourceTemplate[] = [
    {
      uriTemplate: "skill://{+path}",
      name: "skill-file",
      title: "Agent skill file",
      description: `A file of the published ${SKILL_NAME} skill by its path, e.g. skill://${SKILL_NAME}/SKILL.md or skill://${SKILL_NAME}/references/sql-recipes.md.`,
      mimeType: "text/markdown",
    },
  ];
  return {
    scheme: "skill",
    budgetMs: SKILL_BUDGET_MS,
    readTtlMs: SKILL_TTL_MS,
    templates: () => templates.map((t) => ({ ...t })),
    list: () => entries.map((e) => ({ ...e })),
    async read(uri): Promise<ResourceContents[]> {
      const path = skillPathOf(uri);
      const file = path === null ? undefined : files.get(path);
      if (!file) throw new ToolError("NOT_FOUND", `No skill file at ${uri}`, { uri });
      return [{ uri, mimeType: file.mimeType, text: file.text }];
    },
  };
}

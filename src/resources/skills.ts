/**
 * The published chembl-guide skill as MCP resources: skill://chembl-guide/SKILL.md and the template
 * skill://{+path} for its references, served from the tree loadSkillTree read at start-up
 * (src/domain/skills/skills.ts): a read only ever looks a path up in that map.
 */
import { ToolError } from "../domain/errors.js";
import { SAFE_SEGMENT, SKILL_NAME, type SkillFile } from "../domain/skills/skills.js";
import type { ResourceContents, ResourceEntry, ResourceProvider, ResourceTemplate } from "../contract/resource.js";

const SKILL_BUDGET_MS = 5_000;
/** The skill changes only with a release. */
const SKILL_TTL_MS = 3_600_000;

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

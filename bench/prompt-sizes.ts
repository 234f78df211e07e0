/**
 * What each prompt costs a conversation: every shipped prompt rendered with example arguments (as prompts/get
 * renders it, every tool it names listed), its size in UTF-8 bytes and the tool calls its plan asks for (numbered
 * steps naming a tool; a step to repeat while an answer says complete: false counts once). compare_series is
 * rendered on a 200-molecule series pasted in (RDKit's NCI file) and, where it takes one, on a canvas table.
 *
 *   npm run bench:prompts      (or node build/bench/prompt-sizes.js)
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../src/domain/assets.js";
import { allPrompts } from "../src/prompts/index.js";

const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";

/** The series pasted in: NCI's first molecules that hold a ring, or made-up anilides when the file is absent. */
function series(n: number): string[] {
  if (!existsSync(NCI)) return Array.from({ length: n }, (_, i) => `O=C(Nc1ccc(${"C".repeat((i % 12) + 1)})cc1)c1ccccc1${i % 2 ? "F" : "Cl"}`);
  return readFileSync(NCI, "utf8")
    .split("\n")
    .map((l) => l.split(/\s+/)[0]!)
    .filter((s) => /\d/.test(s))
    .slice(0, n);
}

/** Example arguments per prompt: one or more renderings, each with a label. */
function examples(): Record<string, Array<[string, Record<string, string>]>> {
  const s200 = series(200).join("\n");
  return {
    chembl_guide: [["a question", { question: "Which EGFR inhibitors are selective over HER2?" }]],
    hit_triage: [["EGFR by name", { target: "EGFR" }]],
    triage_hit_list: [["hits.sdf, oral", { file: "hits.sdf", goal: "oral" }]],
    profile_molecule: [["aspirin", { smiles: "CC(=O)Oc1ccccc1C(=O)O" }]],
    compare_series: [
      ["200 molecules pasted", { series_smiles: s200 }],
      ["a canvas table", { canvas_id: "cv_local_0123456789abcdefghij", table: "series" }],
    ],
  };
}

function main(): void {
  const skill = readFileSync(join(projectRoot(), "skills", "chembl-guide", "SKILL.md"), "utf8");
  const lines = ["| prompt | arguments | bytes | tool calls |", "|---|---|---:|---:|"];
  const samples = examples();
  for (const prompt of allPrompts(skill)) {
    const declared = new Set(prompt.arguments.map((a) => a.name));
    for (const [label, args] of samples[prompt.name] ?? []) {
      // An example for an argument this version of the prompt does not take is not rendered.
      if (!Object.keys(args).every((k) => declared.has(k))) continue;
      const text = prompt
        .render({ args, has: () => true })
        .map((m) => (m.content.type === "text" ? m.content.text : ""))
        .join("\n");
      // chembl_guide is the skill's text, whose numbered lines are not a plan.
      const calls = prompt.name === "chembl_guide" ? "-" : String([...text.matchAll(/^\d+\. `[a-z0-9_]+`/gm)].length);
      lines.push(`| ${prompt.name} | ${label} | ${Buffer.byteLength(text)} | ${calls} |`);
    }
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

if (process.argv[1]?.endsWith("prompt-sizes.js")) main();

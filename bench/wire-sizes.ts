/**
 * Answer sizes on the wire, before and after: every tool's default call (the golden recording's
 * "<tool> example" step, arguments built from its schema, run by the real server over stdio against the
 * test suite's fake ChEMBL), the other recorded calls, and tools/list with each tool's description and
 * input schema. It compares two golden recordings of the same dialect, so an older revision needs no build:
 *
 *   node build/bench/wire-sizes.js [--before <git rev>] [--dialect 2025-11-25] [--transport stdio]
 *
 * "before" is read with `git show <rev>:test/golden/...`, "after" is this checkout's recording (refresh it with
 * GOLDEN_RECORD=1 first if sources changed). Sizes are bytes of the whole JSON-RPC message (masked values,
 * e.g. canvas ids, have the same length as the real ones; images are hashed, so an image answer is not sized).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

interface Recorded {
  label: string;
  answer: string;
}

interface ToolListing {
  name: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function recording(text: string): Map<string, Recorded> {
  const steps = JSON.parse(text) as Recorded[];
  return new Map(steps.map((s) => [s.label, s]));
}

function tools(steps: Map<string, Recorded>): ToolListing[] {
  const list = steps.get("tools/list");
  if (!list) throw new Error("the recording has no tools/list step");
  return (JSON.parse(list.answer) as { result: { tools: ToolListing[] } }).result.tools;
}

const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const json = (v: unknown) => (v === undefined ? "" : JSON.stringify(v));
const ratio = (before: number | undefined, after: number) => (before ? `${((after / before) * 100).toFixed(0)}%` : "new");

export function compare(beforeText: string, afterText: string): string {
  const before = recording(beforeText);
  const after = recording(afterText);
  const lines: string[] = [];
  lines.push("## Answers (whole JSON-RPC message, bytes)", "", "| call | before | after | after/before |", "|---|---:|---:|---:|");
  for (const [label, step] of after) {
    if (label === "opening" || label.endsWith(" {}") || label.startsWith("resources/read unknown")) continue;
    const b = before.get(label);
    lines.push(`| ${label} | ${b ? bytes(b.answer) : "-"} | ${bytes(step.answer)} | ${ratio(b && bytes(b.answer), bytes(step.answer))} |`);
  }
  const beforeTools = new Map(tools(before).map((t) => [t.name, t]));
  lines.push(
    "",
    "## tools/list per tool (bytes)",
    "",
    "| tool | description before | after | input schema before | after | description + input before | after | output schema before | after |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  const sum = { db: 0, da: 0, ib: 0, ia: 0, ob: 0, oa: 0 };
  for (const t of tools(after)) {
    const b = beforeTools.get(t.name);
    const db = bytes(b?.description ?? "");
    const da = bytes(t.description ?? "");
    const ib = bytes(json(b?.inputSchema));
    const ia = bytes(json(t.inputSchema));
    const ob = bytes(json(b?.outputSchema));
    const oa = bytes(json(t.outputSchema));
    sum.db += db;
    sum.da += da;
    sum.ib += ib;
    sum.ia += ia;
    sum.ob += ob;
    sum.oa += oa;
    lines.push(`| ${t.name} | ${db} | ${da} | ${ib} | ${ia} | ${db + ib} | ${da + ia} | ${ob} | ${oa} |`);
  }
  lines.push(
    `| **all tools** | ${sum.db} | ${sum.da} | ${sum.ib} | ${sum.ia} | ${sum.db + sum.ib} | ${sum.da + sum.ia} | ${sum.ob} | ${sum.oa} |`,
    "",
    `tools/list message: ${bytes(before.get("tools/list")!.answer)} B before, ${bytes(after.get("tools/list")!.answer)} B after.`,
  );
  return lines.join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({
    options: {
      before: { type: "string", default: "f386c02" },
      dialect: { type: "string", default: "2025-11-25" },
      transport: { type: "string", default: "stdio" },
    },
  });
  const file = `test/golden/wire-${values.transport}-${values.dialect}.json`;
  const beforeText = execFileSync("git", ["show", `${values.before}:${file}`], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const afterText = readFileSync(`${ROOT}${file}`, "utf8");
  console.log(`# Wire sizes: ${file} at ${values.before} (before) and in this checkout (after)\n`);
  console.log(compare(beforeText, afterText));
}

/**
 * What a host receives: the model-facing bytes of tools/list (name, description, input schema) per tool and per
 * tool set, and the largest answer of every tool on aspirin and on a 500-molecule list (RDKit's NCI file), both
 * surfaces measured (the content text and the structured result), against the 80,000-byte bound of
 * src/server/answer-cap.ts. Runs the real server in-process, offline (the ChEMBL tools are measured against the
 * test suite's fake ChEMBL by bench/answer-sizes.ts).
 *
 *   npm run bench:sizes      (or node build/bench/host-sizes.js [--list 500])
 */
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createApp } from "../src/app.js";
import { TOOLSETS } from "../src/contract/tool.js";
import { MODEL_FACING_BUDGET_BYTES, modelFacingBytes } from "../src/server/registry.js";
import { MAX_ANSWER_BYTES } from "../src/server/answer-cap.js";
import { MODERN_VERSION } from "../src/protocol/eras.js";
import { allTools } from "../src/tools/index.js";

const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O";

function molecules(n: number): string[] {
  if (!existsSync(NCI)) throw new Error(`${NCI} is absent: apt-get install rdkit-data`);
  return readFileSync(NCI, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(0, n)
    .map((l) => l.split(/\s+/)[0]!);
}

/** The calls measured per tool: aspirin, and the tool's largest list form on `list` (held to the tool's own maximum). */
export function hostSizeCalls(list: string[]): Array<{ tool: string; label: string; args: Record<string, unknown> }> {
  const calls: Array<{ tool: string; label: string; args: Record<string, unknown> }> = [];
  const tools = allTools({});
  const listMax = new Map(tools.filter((t) => t.kind === "chem" && t.list).map((t) => [t.name, (t as { list: { maxItems: number } }).list.maxItems]));
  for (const t of tools) {
    const props = (t.inputSchema.properties ?? {}) as Record<string, unknown>;
    // smarts_match needs its pattern; every other per-molecule tool runs on the molecule alone.
    const extra: Record<string, unknown> = t.name === "smarts_match" ? { smarts: "[#6]~[#8]" } : {};
    if ("smiles" in props && t.name !== "tanimoto" && t.name !== "chembl_search_molecules")
      calls.push({ tool: t.name, label: "aspirin", args: { ...extra, smiles: ASPIRIN } });
    const max = listMax.get(t.name);
    if (max !== undefined) calls.push({ tool: t.name, label: `${Math.min(max, list.length)} molecules`, args: { ...extra, smiles_list: list.slice(0, max) } });
  }
  const special: Array<[string, string, Record<string, unknown>]> = [
    ["name_to_smiles", "aspirin (offline)", { name: "aspirin" }],
    ["tanimoto", "aspirin pair", { smiles1: ASPIRIN, smiles2: "OC(=O)c1ccccc1O" }],
    ["tanimoto", `${list.length} molecules, top_k 1000`, { smiles: ASPIRIN, smiles_list: list, top_k: 1000 }],
    ["find_mcs", "50 molecules", { smiles_list: list.slice(0, 50), timeout_s: 2 }],
    ["depict", "48 molecules svg", { smiles_list: list.slice(0, 48), format: "svg" }],
    ["depict", "aspirin svg", { smiles: ASPIRIN, format: "svg" }],
    ["moljson_to_smiles", "aspirin", { json: { atoms: [{ element: "C", implicit_hydrogens: 4 }], bonds: [] } }],
    ["cluster_molecules", `${list.length} molecules, threshold 0.2`, { smiles_list: list, threshold: 0.2 }],
    ["pick_diverse", `${list.length} molecules, n 500`, { smiles_list: list, n: Math.min(500, list.length) }],
    ["rgroup_decompose", "200 molecules on benzene", { core: "c1ccccc1", smiles_list: list.slice(0, 200) }],
    ["matched_pairs", `${Math.min(500, list.length)} molecules, max_pairs 10000`, { smiles_list: list.slice(0, 500), max_pairs: 10_000 }],
    [
      "enumerate_reaction",
      "amide coupling 100 x 100",
      {
        reaction_smarts: "[C:1](=O)[OH].[N;!H0:2]>>[C:1](=O)[N:2]",
        reactants: [list.slice(0, 100).map(() => "OC(=O)c1ccccc1"), list.slice(0, 100).map((_, i) => `N${"C".repeat((i % 30) + 1)}`)],
      },
    ],
    ["enumerate_stereoisomers", "8 centres", { smiles: "OC1C(O)C(O)C(O)C(O)C1C(O)C(O)C(O)O", only_unassigned: false }],
    ["canvas_import", `${list.length} molecules`, { smiles_list: list }],
  ];
  for (const [tool, label, args] of special) calls.push({ tool, label, args });
  return calls;
}

interface Measured {
  tool: string;
  label: string;
  text: number;
  structured: number;
  note: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { list: { type: "string", default: "500" } } });
  const list = molecules(Number(values.list));
  const app = createApp({ ...process.env, CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" });
  const lines: string[] = [];
  try {
    // tools/list, as a host sends it to the model.
    const wire = app.server.registry.wire(MODERN_VERSION);
    const declared = new Map(allTools({}).map((t) => [t.name, t]));
    lines.push(
      "## Model-facing tools/list (name + description + input schema, bytes)",
      "",
      "| tool | set | description | input schema | total |",
      "|---|---|---:|---:|---:|",
    );
    for (const t of wire) {
      const d = declared.get(t.name)!;
      const sets = [d.toolset, ...(d.alsoIn ?? [])].join("+");
      lines.push(
        `| ${t.name} | ${sets} | ${Buffer.byteLength(t.description)} | ${Buffer.byteLength(JSON.stringify(t.inputSchema))} | ${modelFacingBytes([t])} |`,
      );
    }
    const total = modelFacingBytes(wire);
    lines.push(`| all ${wire.length} tools | | | | ${total} (budget ${MODEL_FACING_BUDGET_BYTES}; about ${Math.round(total / 4)} tokens) |`, "");
    lines.push("| tool set | tools | bytes | about tokens |", "|---|---:|---:|---:|");
    for (const set of TOOLSETS) {
      const inSet = wire.filter((t) => {
        const d = declared.get(t.name)!;
        return d.toolset === set || (d.alsoIn ?? []).includes(set);
      });
      const bytes = modelFacingBytes(inSet);
      lines.push(`| ${set} | ${inSet.length} | ${bytes} | ${Math.round(bytes / 4)} |`);
    }
    // The pair a triage of one's own set lists (the README's table quotes it).
    const triage = wire.filter((t) => {
      const d = declared.get(t.name)!;
      return [d.toolset, ...(d.alsoIn ?? [])].some((s) => s === "canvas" || s === "medchem");
    });
    const triageBytes = modelFacingBytes(triage);
    lines.push(`| canvas,medchem | ${triage.length} | ${triageBytes} | ${Math.round(triageBytes / 4)} |`);
    // Answers.
    const measured: Measured[] = [];
    for (const call of hostSizeCalls(list)) {
      const outcome = await app.server.runTool(call.tool, call.args, { signal: new AbortController().signal });
      if (!outcome.ok) {
        measured.push({ tool: call.tool, label: call.label, text: 0, structured: 0, note: `${outcome.error.code}` });
        continue;
      }
      const structured = Buffer.byteLength(JSON.stringify(outcome.value));
      const text = outcome.blocks ? outcome.blocks.reduce((n, b) => n + (b.type === "text" ? Buffer.byteLength(b.text) : 0), 0) : structured;
      const overflow = outcome.value.overflow as { rows?: number; returned?: number; canvas_id?: string } | undefined;
      measured.push({
        tool: call.tool,
        label: call.label,
        text,
        structured,
        note: overflow ? `${overflow.canvas_id ? "staged" : "cut"}: ${overflow.returned} of ${overflow.rows} shown` : "",
      });
    }
    lines.push(
      "",
      `## Answers (bytes; bound ${MAX_ANSWER_BYTES} each)`,
      "",
      "| tool | call | text | structured | over? | overflow |",
      "|---|---|---:|---:|---|---|",
    );
    for (const m of measured)
      lines.push(
        `| ${m.tool} | ${m.label} | ${m.text} | ${m.structured} | ${Math.max(m.text, m.structured) > MAX_ANSWER_BYTES ? "**OVER**" : ""} | ${m.note} |`,
      );
  } finally {
    await app.close();
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

if (process.argv[1]?.endsWith("host-sizes.js")) await main();

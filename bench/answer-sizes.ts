/**
 * The size of each ChEMBL tool's default answer as a whole JSON-RPC message (the 2025-11-25 shape: the
 * text block and structuredContent), against the test suite's fake ChEMBL with BENCH_ROWS (20,000)
 * extra ranked activities on one target, staged on a canvas the way a real server does. Run
 * `node build/bench/answer-sizes.js` to print the table; test/bench/answer-sizes.test.ts asserts the targets.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { CanvasManager } from "../src/domain/canvas/manager.js";
import { toolSuccess } from "../src/server/shape.js";
import type { ContentBlock } from "../src/contract/tool.js";
import { createChemblGetBioactivitiesTool } from "../src/tools/chembl_get_bioactivities.js";
import { FakeChembl } from "../test/fixtures/chembl/fake-server.js";
import { ACTIVITIES, type Rec } from "../test/fixtures/chembl/world.js";
import { chemblTools, ok, serviceContext, testService } from "../test/fixtures/chembl/harness.js";

export const SIZE_TARGET = "CHEMBL9999001";
const SERVER_VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** Adds `rows` ranked activities on SIZE_TARGET, copies of a PPARgamma row (as bench/chembl-upstream.ts does). */
export function addTargetRows(rows: number): void {
  if (ACTIVITIES.some((r) => r.target_chembl_id === SIZE_TARGET)) return;
  const template = ACTIVITIES.find((r) => r.target_chembl_id === "CHEMBL235" && typeof r.pchembl_value === "string");
  if (!template) throw new Error("the fake world has no ranked PPARgamma activity to copy");
  for (let i = 0; i < rows; i++) {
    const pchembl = (4 + (i % 600) / 100).toFixed(2);
    ACTIVITIES.push({
      ...template,
      activity_id: 9_000_000 + i,
      record_id: 9_000_000 + i,
      target_chembl_id: SIZE_TARGET,
      pchembl_value: pchembl,
      standard_value: (10 ** (9 - Number(pchembl))).toPrecision(4),
      value: (10 ** (9 - Number(pchembl))).toPrecision(4),
    } satisfies Rec);
  }
}

export interface AnswerSize {
  label: string;
  tool: string;
  args: Record<string, unknown>;
  /** Bytes of the whole JSON-RPC response line (UTF-8), 2025-11-25 shape (the "today" figures are this shape). */
  bytes: number;
  /** The same in the 2026-07-28 shape (resultType and the server-info _meta added). */
  bytes2026: number;
  textBytes: number;
  structuredBytes: number;
  value: Record<string, unknown>;
  text: string;
}

/** The whole JSON-RPC message a server sends for a successful call, in the 2025-11-25 shape (or another era's). */
export function messageBytes(value: Record<string, unknown>, text: string, era: "2025-11-25" | "2026-07-28" = "2025-11-25"): number {
  const blocks: ContentBlock[] = [{ type: "text", text }];
  const result = toolSuccess(era, value, { name: "chematic-mcp", version: SERVER_VERSION }, blocks);
  return Buffer.byteLength(JSON.stringify({ jsonrpc: "2.0", id: 1, result }));
}

export async function measureAnswerSizes(rows = 20_000): Promise<AnswerSize[]> {
  addTargetRows(rows);
  const fake = await new FakeChembl().start();
  const manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
  try {
    const service = testService(fake, { deadlineMs: 45_000, requestTimeoutMs: 30_000 });
    const tools = chemblTools(service);
    const bio = createChemblGetBioactivitiesTool(
      () => service,
      () => manager,
    );
    const calls: Array<[string, keyof typeof tools | "bioSpill", Record<string, unknown>]> = [
      ["molecule search, one row (name)", "searchMolecules", { query: "Aspirin" }],
      ["molecule search, similarity", "searchMolecules", { smiles: "CC(=O)Oc1ccccc1C(=O)O", search_type: "similarity" }],
      ["target search", "searchTargets", { query: "EGFR" }],
      [`bioactivities, ${rows.toLocaleString("en-US")}-row target (spilled)`, "bioSpill", { target_chembl_id: SIZE_TARGET }],
      ["bioactivities, molecule (inline)", "bioactivities", { molecule_chembl_id: "CHEMBL25" }],
      ["drug info", "drugInfo", { molecule_chembl_id: "CHEMBL25" }],
      ["assay", "assay", { assay_chembl_id: "CHEMBL771355" }],
      ["documents (two)", "documents", { document_chembl_ids: ["CHEMBL1137930", "CHEMBL1"] }],
    ];
    const out: AnswerSize[] = [];
    for (const [label, key, args] of calls) {
      const tool = key === "bioSpill" ? bio : tools[key];
      const { value, text } = await ok(tool, args, serviceContext(55_000));
      out.push({
        label,
        tool: tool.name,
        args,
        bytes: messageBytes(value, text),
        bytes2026: messageBytes(value, text, "2026-07-28"),
        textBytes: Buffer.byteLength(text),
        structuredBytes: Buffer.byteLength(JSON.stringify(value)),
        value,
        text,
      });
    }
    return out;
  } finally {
    await manager.close();
    await fake.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const sizes = await measureAnswerSizes(Number(process.env.BENCH_ROWS ?? 20_000));
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log("| answer | tool | JSON-RPC message (2025-11-25) | 2026-07-28 | text | structuredContent |\n|---|---|---|---|---|---|");
  for (const s of sizes)
    console.log(`| ${s.label} | ${s.tool} | ${kb(s.bytes)} (${s.bytes} B) | ${s.bytes2026} B | ${kb(s.textBytes)} | ${kb(s.structuredBytes)} |`);
}

/**
 * Golden wire answers: a fixed set of calls, in the 2026-07-28 dialect and in three legacy versions, over
 * stdio and over HTTP, compared byte for byte (once the fields that vary by run are masked) with answers
 * recorded before a refactoring. A change that is meant to keep behaviour must keep these files; a change
 * that is meant to alter answers re-records them (`GOLDEN_RECORD=1 node --test build/test/golden/`) and the
 * diff of the JSON files shows, in review, every answer it altered.
 *
 * A tool added since the recording does not fail it: tools/list is compared on the recorded tools, and the
 * new tool's own steps are not compared (re-record to pin them).
 *
 * The calls: discovery and listings, every tool with a call built from its input schema, with no
 * arguments and with an invalid SMILES, the six ChEMBL tools and the chembl:// and skill:// resources
 * against the local fake ChEMBL, a spill onto a canvas with SQL and describe on it, and the JSON-RPC error
 * classes. What varies by run is masked: canvas ids, timestamps, query times and the server's own version; and
 * base64 image data, kept as its SHA-256 so the files stay small and still pin every byte.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MODERN_META, ServerProcess } from "../helpers/server-process.js";
import { HttpServerProcess, httpSend, modernHeaders } from "../helpers/http.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { exampleFor } from "../helpers/schema-example.js";
import { ToolRegistry } from "../../src/server/registry.js";
import { allTools } from "../../src/tools/index.js";
import { PACKAGE } from "../../src/version.js";

const VERSION = PACKAGE.version;

/** Source directory of the golden files (this file runs from build/test/golden/). */
const GOLDEN_DIR = fileURLToPath(new URL("../../../test/golden/", import.meta.url));
const RECORD = process.env.GOLDEN_RECORD === "1";

type Schema = Record<string, unknown>;

/** What varies by run, replaced by a stable token (in JSON text and in JSON nested in text blocks). */
export function mask(line: string): string {
  return (
    line
      .replace(/("data":")([A-Za-z0-9+/=]{256,})"/g, (_m, head: string, data: string) => `${head}sha256:${createHash("sha256").update(data).digest("hex")}"`)
      // A canvas id, also as markdown escapes it (cv\\_r1\\_abcd inside a JSON string).
      .replace(/cv\\*_[a-z0-9]{1,16}\\*_[A-Za-z0-9]{28}/g, "cv_<id>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, "<timestamp>")
      .replace(/(\\*"elapsed_ms\\*":)\d+/g, "$1<ms>")
      .replace(/(\| elapsed_ms \| )\d+/g, "$1<ms>")
      .replace(/(elapsed[ _]ms[^0-9|]{0,8})\d+/g, "$1<ms>")
      .replaceAll(`"version":"${VERSION}"`, `"version":"<version>"`)
      .replaceAll(`\\"version\\":\\"${VERSION}\\"`, `\\"version\\":\\"<version>\\"`)
  );
}

interface Step {
  label: string;
  /** The raw frame; `{{canvas}}` stands for the canvas id the spill step answered. */
  frame: string;
}

interface Recorded {
  label: string;
  frame: string;
  answer: string;
  /** HTTP only: the status code. */
  status?: number;
}

const ENV_BASE = { CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "error", CHEMBL_REQUEST_TIMEOUT_MS: "3000", CHEMBL_DEADLINE_MS: "8000" };

let fake: FakeChembl;
let env: Record<string, string>;

before(async () => {
  fake = await new FakeChembl("new").start();
  // PubChem points at the fake too: name_to_smiles then gets the fake's 404, a stable answer.
  env = { ...ENV_BASE, CHEMBL_API_BASE_URL: fake.baseUrl, PUBCHEM_API_BASE_URL: `${fake.baseUrl}/pubchem-absent` };
});
after(() => fake.stop());

type Dialect = "2026-07-28" | "2025-11-25" | "2025-06-18" | "2024-11-05";
const DIALECTS: readonly Dialect[] = ["2026-07-28", "2025-11-25", "2025-06-18", "2024-11-05"];

/**
 * The schema each tool validates calls with: tools/list carries its host form (src/server/host-schema.ts), which
 * leaves the choice between smiles, smiles_list and sdf to the server, so examples are built from the declared one.
 */
const DECLARED = new ToolRegistry(allTools({}, { dataframeDrop: true }));
const declaredSchema = (tool: { name: string; inputSchema: Schema }): Schema => DECLARED.get(tool.name)?.tool.inputSchema ?? tool.inputSchema;

/** The fixed set of steps for one dialect; tools come from that dialect's own tools/list answer. */
function stepsFor(dialect: Dialect, listed: Array<{ name: string; inputSchema: Schema }>): Step[] {
  const tools = listed.map((t) => ({ name: t.name, inputSchema: declaredSchema(t) }));
  const modern = dialect === "2026-07-28";
  let id = 100;
  const params = (p: Record<string, unknown> = {}) => (modern ? { _meta: MODERN_META, ...p } : p);
  const req = (label: string, method: string, p: Record<string, unknown> = {}): Step => ({
    label,
    frame: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params: params(p) }),
  });
  const call = (label: string, name: string, args: unknown) => req(label, "tools/call", { name, arguments: args });
  const steps: Step[] = [];
  steps.push(req("tools/list", "tools/list"));
  steps.push(req("resources/list", "resources/list"));
  steps.push(req("resources/templates/list", "resources/templates/list"));
  steps.push(req("resources/read chembl molecule", "resources/read", { uri: "chembl://molecule/CHEMBL25" }));
  steps.push(req("resources/read chembl target", "resources/read", { uri: "chembl://target/CHEMBL203" }));
  steps.push(req("resources/read unknown chembl", "resources/read", { uri: "chembl://molecule/CHEMBL0000" }));
  steps.push(req("resources/read skill", "resources/read", { uri: "skill://chembl-guide/SKILL.md" }));
  steps.push(req("resources/read unknown scheme", "resources/read", { uri: "nope://x" }));
  for (const tool of tools) {
    steps.push(call(`${tool.name} example`, tool.name, exampleFor(tool.inputSchema, tool.name)));
    steps.push(call(`${tool.name} {}`, tool.name, {}));
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
    if (properties.smiles)
      steps.push(call(`${tool.name} bad SMILES`, tool.name, { ...(exampleFor(tool.inputSchema, tool.name) as Record<string, unknown>), smiles: "C1CC(" }));
  }
  // Chemistry answers on molecules with stereo, charges, salts, metals and a macrocycle.
  const molecules = [
    "C/C=C/C(=O)O",
    "C[C@H](N)C(=O)O",
    "CC(C)Cc1ccc(cc1)[C@@H](C)C(=O)[O-].[Na+]",
    "[NH3+]CC(=O)[O-]",
    "Cl[Pt](Cl)([NH3])[NH3]",
    "C1CCCCCCCCCCC(=O)NCCCCCCCCCC1",
  ];
  for (const [i, smiles] of molecules.entries()) {
    for (const tool of ["canonical_smiles", "calc_properties", "lipinski_check", "admet_profile", "standardize", "smiles_to_moljson"]) {
      steps.push(call(`${tool} molecule ${i}`, tool, { smiles }));
    }
  }
  steps.push(call("tanimoto list", "tanimoto", { smiles_list: ["c1ccccc1O", "c1ccccc1N", "CC(=O)O"] }));
  steps.push(call("find_mcs", "find_mcs", { smiles_list: ["c1ccccc1CCO", "c1ccccc1CCN"] }));
  // Issue 16: scaffolds (with group_by_scaffold), Butina clusters, MaxMin picks.
  const set = ["c1ccccc1CCO", "c1ccccc1CCN", "CCO", "O=C1CCCCC1", "Cc1ccccc1", "not a smiles"];
  steps.push(call("murcko_scaffold list", "murcko_scaffold", { smiles_list: set }));
  steps.push(call("cluster_molecules", "cluster_molecules", { smiles_list: set, threshold: 0.7 }));
  steps.push(call("pick_diverse", "pick_diverse", { smiles_list: set.slice(0, 5), n: 3 }));
  steps.push(call("smarts_match", "smarts_match", { smiles: "OCC(O)CO", smarts: "[OX2H]" }));
  steps.push(call("depict svg", "depict", { smiles: "c1ccccc1O", format: "svg" }));
  // ChEMBL against the fake.
  steps.push(call("chembl search name", "chembl_search_molecules", { query: "Aspirin" }));
  steps.push(call("chembl search smiles", "chembl_search_molecules", { smiles: "CC(=O)Oc1ccccc1C(=O)O", search_type: "similarity" }));
  steps.push(call("chembl search substructure", "chembl_search_molecules", { smiles: "c1ccccc1C(=O)O", search_type: "substructure" }));
  steps.push(call("chembl targets", "chembl_search_targets", { gene_symbol: "ace" }));
  steps.push(call("chembl targets query", "chembl_search_targets", { query: "EGFR" }));
  steps.push(call("chembl bioactivities", "chembl_get_bioactivities", { target_chembl_id: "CHEMBL203", limit: 2 }));
  steps.push(call("chembl bioactivities molecule", "chembl_get_bioactivities", { molecule_chembl_id: "CHEMBL324340" }));
  steps.push(call("chembl drug info", "chembl_get_drug_info", { molecule_chembl_id: "CHEMBL122" }));
  steps.push(call("chembl drug info family", "chembl_get_drug_info", { molecule_chembl_id: "CHEMBL1237" }));
  steps.push(call("chembl drug info protein", "chembl_get_drug_info", { molecule_chembl_id: "CHEMBL1201644" }));
  steps.push(call("chembl assay", "chembl_get_assay", { assay_chembl_id: "chembl771355" }));
  steps.push(call("chembl documents", "chembl_get_documents", { document_chembl_ids: ["CHEMBL1137930", "CHEMBL1"] }));
  steps.push(call("chembl spill", "chembl_get_bioactivities", { target_chembl_id: "CHEMBL235", limit: 3 }));
  steps.push(
    call("canvas query", "chembl_dataframe_query", {
      canvas_id: "{{canvas}}",
      sql: "SELECT standard_type, count(*) AS n, max(pchembl_value) AS best FROM bioactivities GROUP BY 1 ORDER BY 1",
    }),
  );
  steps.push(call("canvas describe", "chembl_dataframe_describe", { canvas_id: "{{canvas}}" }));
  steps.push(call("canvas refused", "chembl_dataframe_query", { canvas_id: "{{canvas}}", sql: "SELECT * FROM read_text('/etc/passwd')" }));
  steps.push(call("canvas unknown", "chembl_dataframe_query", { canvas_id: "{{canvas-unknown}}", sql: "SELECT 1" }));
  steps.push(call("canvas drop disabled", "chembl_dataframe_drop", { canvas_id: "{{canvas}}" }));
  // JSON-RPC error classes.
  steps.push({ label: "parse error", frame: "not json at all" });
  steps.push({ label: "batch", frame: '[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]' });
  steps.push({ label: "bad envelope", frame: JSON.stringify({ jsonrpc: "1.0", id: id++, method: "tools/list" }) });
  steps.push(req("unknown method", "completion/complete"));
  steps.push(call("unknown tool", "no_such_tool", {}));
  steps.push(req("malformed call", "tools/call", { name: 5 }));
  steps.push(req("cursor", "tools/list", { cursor: "x" }));
  if (modern) {
    steps.push(req("ping is legacy", "ping"));
    steps.push({
      label: "no capabilities",
      frame: JSON.stringify({ jsonrpc: "2.0", id: id++, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } }),
    });
    steps.push({
      label: "unsupported version",
      frame: JSON.stringify({
        jsonrpc: "2.0",
        id: id++,
        method: "server/discover",
        params: { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      }),
    });
  } else {
    steps.push(req("ping", "ping"));
  }
  // Issue 16 (medicinal chemistry), appended so the ids of the steps before stay as they were.
  steps.push(call("rgroup_decompose", "rgroup_decompose", { core: "c1ccc([*:1])cc1", smiles_list: ["Clc1ccccc1", "Oc1ccccc1", "CCO"] }));
  steps.push(call("matched_pairs", "matched_pairs", { smiles_list: ["c1ccccc1Cl", "c1ccccc1F", "c1ccccc1"], values: [6, 6.5, 5] }));
  // Issue 20 (prompts), appended likewise.
  steps.push(req("prompts/list", "prompts/list"));
  steps.push(req("prompts/get profile_molecule", "prompts/get", { name: "profile_molecule", arguments: { smiles: "CC(=O)Oc1ccccc1C(=O)O" } }));
  steps.push(req("prompts/get compare_series", "prompts/get", { name: "compare_series", arguments: { series_smiles: "c1ccccc1Cl\nc1ccccc1F" } }));
  steps.push(req("prompts/get missing argument", "prompts/get", { name: "hit_triage", arguments: {} }));
  steps.push(req("prompts/get unknown", "prompts/get", { name: "no_such_prompt" }));
  return steps;
}

/** `{{canvas}}` is the staged canvas; `{{canvas-unknown}}` an ID of the same replica run that names no canvas. */
function substitute(frame: string, canvas: string | undefined): string {
  return canvas === undefined ? frame : frame.replaceAll("{{canvas}}", canvas).replaceAll("{{canvas-unknown}}", `${canvas.slice(0, -24)}${"A".repeat(24)}`);
}

function canvasOf(answer: string): string | undefined {
  return /cv_[a-z0-9]{1,16}_[A-Za-z0-9]{28}/.exec(answer)?.[0];
}

function goldenPath(transport: "stdio" | "http", dialect: Dialect): string {
  return `${GOLDEN_DIR}wire-${transport}-${dialect}.json`;
}

/** Records, or compares with the recorded answers: every step, then the step count. */
function settle(transport: "stdio" | "http", dialect: Dialect, recorded: Recorded[]): void {
  const path = goldenPath(transport, dialect);
  if (RECORD) {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(path, `${JSON.stringify(recorded, null, 1)}\n`);
    return;
  }
  assert.ok(existsSync(path), `${path} is missing: record it with GOLDEN_RECORD=1`);
  const golden = JSON.parse(readFileSync(path, "utf8")) as Recorded[];
  const byLabel = new Map(golden.map((g) => [g.label, g]));
  // A tool added since the recording changes nothing the golden answers pin: tools/list is compared on the
  // recorded tools, and the new tool's own steps (labelled by its name) have no golden answer to keep.
  const goldenTools = new Set(toolNamesOf(byLabel.get("tools/list")?.answer));
  const isNewToolStep = (label: string) => {
    const tool = label.split(" ")[0]!;
    return goldenTools.size > 0 && !goldenTools.has(tool) && label !== tool && /^[a-z0-9_]+ (example|\{\}|bad SMILES)$/.test(label);
  };
  const kept = recorded.filter((r) => !isNewToolStep(r.label));
  for (const now of kept) {
    const then = byLabel.get(now.label);
    assert.ok(then, `${transport} ${dialect}: step "${now.label}" has no golden answer`);
    assert.equal(now.frame, then.frame, `${transport} ${dialect} "${now.label}": the request changed`);
    if (now.status !== undefined) assert.equal(now.status, then.status, `${transport} ${dialect} "${now.label}": HTTP status`);
    const answer = now.label === "tools/list" ? withOnlyTools(now.answer, goldenTools) : now.answer;
    if (answer !== then.answer) {
      let i = 0;
      while (i < answer.length && answer[i] === then.answer[i]) i++;
      assert.fail(
        `${transport} ${dialect} "${now.label}": the answer differs from the golden one at byte ${i}\n` +
          `  now:    …${answer.slice(Math.max(0, i - 160), i + 160)}\n  golden: …${then.answer.slice(Math.max(0, i - 160), i + 160)}`,
      );
    }
  }
  assert.deepEqual(
    kept.map((r) => r.label),
    golden.map((g) => g.label),
    `${transport} ${dialect}: the steps are the recorded ones`,
  );
}

function toolNamesOf(answer: string | undefined): string[] {
  if (answer === undefined) return [];
  const tools = (JSON.parse(answer) as { result?: { tools?: Array<{ name: string }> } }).result?.tools ?? [];
  return tools.map((t) => t.name);
}

/** A tools/list answer with only the named tools, serialised as the server does (one JSON line). */
function withOnlyTools(answer: string, names: ReadonlySet<string>): string {
  if (names.size === 0) return answer;
  const message = JSON.parse(answer) as { result?: { tools?: Array<{ name: string }> } };
  if (!message.result?.tools) return answer;
  message.result.tools = message.result.tools.filter((t) => names.has(t.name));
  return JSON.stringify(message);
}

async function stdioLine(server: ServerProcess, raw: string): Promise<string> {
  const before = server.lines.length;
  server.sendRaw(`${raw}\n`);
  // Every step gets exactly one line (no progress token is sent).
  await server.until(() => server.lines.length > before, `a stdio answer to ${raw.slice(0, 200)}`, 30_000);
  return server.lines[before]!;
}

function httpHeaders(raw: string, dialect: Dialect): Record<string, string> {
  if (dialect !== "2026-07-28") return { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": dialect };
  try {
    const message = JSON.parse(raw) as { method?: string; params?: Record<string, unknown> };
    const version = (message.params?._meta as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/protocolVersion"];
    const headers = modernHeaders({ method: message.method ?? "", ...(message.params ? { params: message.params } : {}) });
    if (typeof version === "string") headers["MCP-Protocol-Version"] = version;
    return headers;
  } catch {
    return modernHeaders({ method: "tools/list" });
  }
}

function toolsOf(answer: string): Array<{ name: string; inputSchema: Schema }> {
  return (JSON.parse(answer) as { result: { tools: Array<{ name: string; inputSchema: Schema }> } }).result.tools;
}

/** The first frame of a session: server/discover, or initialize for a legacy dialect. */
function openingFrame(dialect: Dialect): string {
  return dialect === "2026-07-28"
    ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: MODERN_META } })
    : JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: dialect, capabilities: {}, clientInfo: { name: "golden", version: "1" } },
      });
}

type Exchange = (frame: string) => Promise<{ answer: string; status?: number }>;

/** One dialect's session over one transport: the opening, tools/list, then every step, each answer masked. */
async function recordSession(dialect: Dialect, exchange: Exchange, afterOpening: () => void = () => {}): Promise<Recorded[]> {
  const recorded: Recorded[] = [];
  const opening = openingFrame(dialect);
  const first = await exchange(opening);
  recorded.push({ label: "opening", frame: opening, answer: mask(first.answer), ...(first.status === undefined ? {} : { status: first.status }) });
  afterOpening();
  const listFrame = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: dialect === "2026-07-28" ? { _meta: MODERN_META } : {} });
  const tools = toolsOf((await exchange(listFrame)).answer);
  let canvas: string | undefined;
  for (const step of stepsFor(dialect, tools)) {
    const { answer, status } = await exchange(substitute(step.frame, canvas));
    if (step.label === "chembl spill") canvas = canvasOf(answer);
    recorded.push({ label: step.label, frame: step.frame, answer: mask(answer), ...(status === undefined ? {} : { status }) });
  }
  return recorded;
}

for (const dialect of DIALECTS) {
  describe(`golden wire answers, ${dialect}`, () => {
    test("over stdio", async () => {
      const server = new ServerProcess(env);
      try {
        const legacy = dialect !== "2026-07-28";
        const recorded = await recordSession(
          dialect,
          async (frame) => ({ answer: await stdioLine(server, frame) }),
          () => legacy && server.send({ jsonrpc: "2.0", method: "notifications/initialized" }),
        );
        settle("stdio", dialect, recorded);
      } finally {
        await server.close();
      }
    });

    test("over HTTP", async () => {
      const server = new HttpServerProcess([], env);
      try {
        const url = await server.url;
        const recorded = await recordSession(dialect, async (frame) => {
          const reply = await httpSend(url, frame, { headers: httpHeaders(frame, dialect), timeoutMs: 30_000 });
          return { status: reply.status, answer: reply.text };
        });
        settle("http", dialect, recorded);
      } finally {
        await server.stop();
      }
    });
  });
}

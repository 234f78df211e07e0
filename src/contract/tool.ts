/**
 * The tool contract, shared by the tools, the server and the transports (floor 1: it imports only the
 * domain). What a tool is: metadata an agent reads, schemas both sides are checked against, the error
 * codes it may answer, a time budget, and a handler that returns a plain object computed once. The server
 * decides how each protocol era wraps that object.
 */
import type { DomainErrorPayload, ErrorCode } from "../domain/errors.js";
import type { RDKit } from "../domain/chem/rdkit.js";

export type JsonSchema = Record<string, unknown>;

/**
 * The schema of one entry's error in an answer about many entries (a list item, a grid cell): the
 * DomainErrorPayload a single call with that entry would answer. `description` says what the entry lacks.
 */
export function entryErrorSchema(description: string): JsonSchema {
  return {
    type: "object",
    description,
    properties: { code: { type: "string" }, message: { type: "string" }, hint: { type: "string" }, details: { type: "object" } },
    required: ["code", "message"],
    additionalProperties: false,
  };
}

/** The tool sets: chemistry computed locally, ChEMBL data, the canvas (SQL over staged tables), medicinal chemistry. */
export const TOOLSETS = ["chem", "chembl", "canvas", "medchem"] as const;
export type Toolset = (typeof TOOLSETS)[number];

export interface ToolAnnotations {
  readOnlyHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
  destructiveHint?: boolean;
}

export interface ProgressReporter {
  (progress: number, total?: number, message?: string): void;
}

/** Context of a chemistry tool: it runs inside a worker thread that owns an RDKit instance. */
export interface ChemContext {
  rdkit: RDKit;
  progress: ProgressReporter;
}

/** Context of a service tool (network, canvas): it runs on the main thread, with cancellation. */
export interface ServiceContext {
  signal: AbortSignal;
  progress: ProgressReporter;
  /** When this call's budget ends, as epoch milliseconds (compare with Date.now()); pass it down to chained requests. */
  deadline: number;
  /**
   * Whether the call carries a progress token: its progress notifications keep the client's timeout alive,
   * so a tool with a progressBudgetMs may run past the usual budget (see ServiceTool.progressBudgetMs).
   */
  progressTracked?: boolean;
  /**
   * Who is calling, when the HTTP transport authenticates callers: the token's label (bearer mode) or the
   * access token's subject (OAuth mode). Canvases belong to the owner that made them. Absent without
   * authentication (stdio, HTTP with --auth none).
   */
  owner?: string | undefined;
  /**
   * Runs chemistry tools in the worker pool (RDKit is not loaded on the main thread). The server always
   * provides it; it is optional so unit tests can build a context without a pool.
   */
  chem?: ChemRunner;
}

/** A service tool's way to a chemistry tool: it names the tool by its object, so the compiler checks the arguments and the result. */
export interface ChemRunner {
  /**
   * Runs a registered chemistry tool in the worker pool, under the caller's cancellation and at most the
   * time its call has left. Rejects with the tool's ToolError. The tool's progress reaches `onProgress` (the
   * caller decides what of it its own client hears: a call made of several steps rescales it).
   */
  run<A, R>(tool: ChemTool<A, R>, args: A, options?: { onProgress?: ProgressReporter }): Promise<R>;
  /**
   * Runs a chemistry tool on many entries as one list call (WorkerPool.runList: chunks over all workers),
   * within the caller's remaining time (or `budgetMs` when smaller). One outcome per entry, in order; an
   * entry the budget left undone answers TIMEOUT. Rejects only on cancellation or BUSY. The tool may be a
   * worker-only one (see WORKER_ONLY_TOOLS in src/tools/index.ts).
   */
  runList?<A, R>(tool: ChemTool<A, R>, items: A[], options?: ChemListOptions): Promise<Array<ChemListOutcome<R>>>;
}

export interface ChemListOptions {
  budgetMs?: number;
  /** After each chunk: entries done so far, of all. */
  onChunk?: (done: number, total: number) => void;
}

/** One entry's outcome of ChemRunner.runList: its value, or the error it answered. */
export type ChemListOutcome<R> = { ok: true; value: R } | { ok: false; error: DomainErrorPayload };

interface ToolBase {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** Domain error codes this tool may answer (INVALID_ARGUMENTS, TIMEOUT and BUSY apply to every tool). */
  errors: readonly ErrorCode[];
  /** Time budget of one call, at most MAX_TOOL_BUDGET_MS. */
  budgetMs: number;
  /**
   * The tool set it belongs to (chemistry, ChEMBL, the canvas, medicinal chemistry): what an operator
   * selects tools by. Declared here, in the tool's own file, like everything the server needs to know.
   */
  toolset: Toolset;
  /**
   * Further sets that list it too, when their work needs it: depict belongs with chem, and is listed with the
   * canvas and medchem sets so that a triage can draw its rows without the format converters coming along.
   */
  alsoIn?: readonly Toolset[];
  /** Registered only when CHEMATIC_TEST_TOOLS is on (fixtures for tests and the conformance suite). */
  testOnly?: boolean;
  /**
   * The content blocks of a successful result, in place of the one text block holding the JSON result
   * (structuredContent is unchanged). For test fixtures that must answer image, audio or resource blocks
   * (the conformance suite) and for service tools; the registry refuses it on a shipped chemistry tool.
   */
  content?: (result: Record<string, unknown>) => ContentBlock[];
  /**
   * Client capabilities a call needs (e.g. "sampling"). A 2026-07-28 call whose
   * _meta clientCapabilities lacks one is refused with -32021 and data.requiredCapabilities.
   */
  requiredClientCapabilities?: readonly string[];
  /**
   * The MCP App (extension io.modelcontextprotocol/ui) that shows this tool's results, listed as the tool's
   * `_meta.ui` only to clients that declare the extension. `visibility: ["app"]` makes a tool the app's alone: such a
   * tool is listed to those clients only (their hosts keep it from the model), so every other client's list and
   * the model-facing bytes stay as they are.
   */
  ui?: ToolUi;
}

/** Who may call a tool, in MCP Apps terms: the model, the app, or both (the default). */
type ToolVisibility = "model" | "app";

export interface ToolUi {
  /** The `ui://` resource the host renders for this tool's results. */
  resourceUri: string;
  visibility?: readonly ToolVisibility[];
}

/** Whether a tool is for an MCP App's own calls only (never listed to a client without the extension). */
export function appOnly(tool: { ui?: ToolUi | undefined }): boolean {
  const v = tool.ui?.visibility;
  return v !== undefined && v.length > 0 && !v.includes("model");
}

/** A content block of a tools/call result (MCP ContentBlock): text, image, audio, an embedded resource or a link to one. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string; size?: number; description?: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string } };

/**
 * Reserved key of a tool result: extra content blocks (e.g. depict's PNG as an image block) that the
 * server sends after the JSON text block. The server takes the key out before it checks the result
 * against the outputSchema, so structuredContent and the text block stay small. A plain key (not a
 * symbol) because a chemistry result crosses a worker boundary by structured clone.
 */
export const EXTRA_CONTENT_KEY = "_extra_content";

export type WithExtraContent<R> = R & { [EXTRA_CONTENT_KEY]: ContentBlock[] };

/** A result plus extra content blocks (see EXTRA_CONTENT_KEY). */
export function withExtraContent<R extends Record<string, unknown>>(result: R, blocks: ContentBlock[]): WithExtraContent<R> {
  return { ...result, [EXTRA_CONTENT_KEY]: blocks };
}

/**
 * A per-molecule chemistry tool's list form: the server also accepts `smiles_list` (and `fields`) for it,
 * derives the list input and output schemas from the single ones, and runs the entries in chunks over all
 * workers as one call (src/server/list.ts).
 */
interface ListSpec {
  /** Most entries one call may carry (at most MAX_ARRAY_LENGTH). */
  maxItems: number;
  /** Time budget of a whole list call (at most MAX_TOOL_BUDGET_MS); entries not done by then answer TIMEOUT. */
  budgetMs: number;
  /**
   * A summary of the whole list beside the per-entry results (e.g. murcko_scaffold's group_by_scaffold):
   * built from every entry's outcome (undefined for an entry that failed), answered under `key`.
   */
  summary?: ListSummary;
}

export interface ListSummary {
  /** The list answer's key that holds it. */
  key: string;
  /** Its JSON schema (with a description). */
  schema: JsonSchema;
  // The results cross the worker boundary as plain objects; `any` here is the erasure point.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  build(results: ReadonlyArray<any>, args: Record<string, unknown>): unknown;
}

/**
 * A chemistry tool's form that runs on the main thread, where the canvas lives (a canvas table instead of
 * an inline list): the server runs it as a service tool, under the tool's budget, when `applies` says the
 * arguments ask for it. It reaches the workers through ctx.chem.
 */
export interface MainForm<A> {
  applies(args: A): boolean;
  /** This form's time budget when it differs from the tool's single-molecule one (a table is worked in steps of it). */
  budgetMs?: number;
  /** The answer's schema, an alternative beside the tool's other answers. */
  outputSchema: JsonSchema;
  run(args: A, ctx: ServiceContext): Promise<Record<string, unknown>>;
}

export interface ChemTool<A = Record<string, unknown>, R = Record<string, unknown>> extends ToolBase {
  kind: "chem";
  /** Declared by tools whose input is one molecule (`smiles`): they also take `smiles_list`. */
  list?: ListSpec;
  /**
   * Arguments the server resolves on the main thread, under the call's budget, before the call goes to a
   * worker: depict's canvas_id + sql become smiles_list + legends (the canvas lives on the main thread).
   * The resolved arguments are what run receives.
   */
  resolveOnMain?: (args: A, ctx: ServiceContext) => Promise<A>;
  /** A main-thread form (see MainForm): a canvas table in place of smiles_list. */
  mainForm?: MainForm<A>;
  run(args: A, ctx: ChemContext): R;
}

export interface ServiceTool<A = Record<string, unknown>, R = Record<string, unknown>> extends ToolBase {
  kind: "service";
  /**
   * The budget of a call that carries a progress token, when the tool reports progress often enough to keep
   * the client's timeout alive (a bioactivity spill under CHEMBL_SPILL_DEADLINE_MS); at most
   * MAX_PROGRESS_BUDGET_MS. Without a token a call always has budgetMs.
   */
  progressBudgetMs?: () => number;
  run(args: A, ctx: ServiceContext): Promise<R>;
}

// The registry holds tools of many argument types; `any` here is the erasure point.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ChemTool<any, any> | ServiceTool<any, any>;

/** Tool description as the wire carries it (tools/list). */
export interface WireTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations & { title?: string };
  /** MCP Apps: the tool's UI resource and visibility (only for clients that declare the extension). */
  _meta?: { ui: { resourceUri?: string; visibility?: ToolVisibility[] } };
}

/** Abbreviations whose period does not end a sentence. */
const ABBREVIATIONS = /(?:\b(?:e\.g|i\.e|et al|cf|vs|approx|Fig|No|Nat|Chem|Med|J)|\.\.)$/;

/**
 * The first whole sentence of a description: up to the first period, question or exclamation mark that is
 * followed by a space or the end, outside parentheses and brackets, and not an abbreviation's ("e.g.", "et al.")
 * or an ellipsis. The whole text when it holds one sentence.
 */
export function firstSentence(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "(" || c === "[") depth++;
    else if ((c === ")" || c === "]") && depth > 0) depth--;
    else if ((c === "." || c === "!" || c === "?") && depth === 0 && (i + 1 === text.length || /\s/.test(text[i + 1]!))) {
      if (c === "." && ABBREVIATIONS.test(text.slice(0, i))) continue;
      return text.slice(0, i + 1);
    }
  }
  return text.trim();
}

/**
 * McpServer: method dispatch for both protocol eras, tool execution, and per-era result shaping.
 * Stateless across requests except for what a Connection hands it (the pinned era and, for legacy, the
 * negotiated version).
 */
import { ToolError } from "../domain/errors.js";
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  RpcError,
  isJsonObject,
  type JsonObject,
  type JsonRpcRequest,
} from "../protocol/jsonrpc.js";
import { negotiateLegacyVersion } from "../protocol/meta.js";
import { UI_EXTENSION_ID, declaresApps } from "../protocol/extensions.js";
import {
  META_CLIENT_CAPABILITIES,
  MODERN_VERSION,
  SUPPORTED_MODERN_VERSIONS,
  features,
  lifecycleMethods,
  readsMeta,
  type Era,
  type LegacyVersion,
  type ProtocolVersion,
} from "../protocol/eras.js";
import type { AnyTool, ContentBlock, ChemListOptions, ChemListOutcome, ProgressReporter, ServiceContext } from "../contract/tool.js";
import { CancelledError } from "../contract/errors.js";
import { APP_SHOWS } from "../contract/apps.js";
import { appOnly } from "../contract/tool.js";
import { clipText, MAX_PROGRESS_BUDGET_MS } from "../contract/limits.js";
import { InternalToolError, type ListOutcome, type WorkerPool } from "./pool.js";
import { RESOURCE_LIST_TTL_MS, ResourceRegistry } from "./resources.js";
import type { ResourceProvider } from "../contract/resource.js";
import type { Prompt } from "../contract/prompt.js";
import { PROMPT_LIST_TTL_MS, PromptRegistry } from "./prompts.js";
import { ToolRegistry, describeIssues } from "./registry.js";
import { isListCall, runListCall } from "./list.js";
import { capAnswer, type RowStager } from "./answer-cap.js";
import { shapeOutcome, splitExtraContent, wrapResult, type ServerInfo, type ToolOutcome } from "./shape.js";
import type { Logger } from "../logger.js";

/** tools/list and server/discover may be cached for a day: the registry only changes with a new release. */
export const REGISTRY_TTL_MS = 86_400_000;

export const INSTRUCTIONS =
  "chematic-mcp computes cheminformatics locally with RDKit. " +
  "Molecules: an argument named smiles (or smiles_list entries, smiles1, query...) takes SMILES, CXSMILES or a molblock (with its M  END line); " +
  "not InChI or names: resolve those with name_to_smiles. Validate unfamiliar SMILES with parse_smiles. " +
  "Lists: a per-molecule tool takes exactly one of smiles (one molecule), smiles_list (a list) or sdf (SDF text, one molecule a record), " +
  "never two; fields (result keys to keep) goes only with a list. A list answer is { results: [{index, result | error}], summary }, in input order " +
  "(echo_input: true repeats each entry as input; an sdf record is named by its title). An answer over 80,000 bytes is not pasted: " +
  "it is staged as a table on a canvas (canvas_id, table; read it with chembl_dataframe_query), or, with the canvas off, cut with summary.next_index to send the rest from. " +
  "Salts and mixtures: per-molecule values are for every fragment together (a MULTIPLE_FRAGMENTS warning says so); parent: true computes on the standardised parent. " +
  "Errors come back as a result with isError and structuredContent.error {code, message, hint, details}: follow the hint " +
  "(INVALID_ARGUMENTS names the argument and what to send instead; INVALID_SMILES names the position to fix) before retrying.";

/** The bytes of a result's text blocks. */
function contentTextBytes(blocks: readonly ContentBlock[]): number {
  let total = 0;
  for (const b of blocks) if (b.type === "text") total += Buffer.byteLength(b.text, "utf8");
  return total;
}

export interface CallContext {
  signal: AbortSignal;
  progress?: ProgressReporter | undefined;
  /** The request's _meta clientCapabilities (2026-07-28 only; the legacy era declares them in initialize). */
  clientCapabilities?: JsonObject | undefined;
  /** The authenticated caller (token label or subject) when the transport authenticates; what canvases belong to. */
  owner?: string | undefined;
  /** The client declared the MCP Apps extension (2026-07-28: in this request's _meta; legacy: in initialize). */
  apps?: boolean | undefined;
}

/**
 * Who is shown the MCP Apps (CHEMATIC_APPS): `auto` the clients that declare the extension; `on` every client as
 * well (a stateless HTTP server cannot carry a legacy client's initialize to its later requests, so an operator
 * whose hosts render apps over it says so); `off` none.
 */
export type AppsMode = "auto" | "on" | "off";

/** At most this many schema issues are reported for one call (details.issues_total counts them all). */
export const MAX_REPORTED_ISSUES = 20;
/** Characters of one issue's path or message (a client-chosen key can be 256 KiB long). */
const MAX_ISSUE_TEXT = 200;
/** Characters of one issue's message at most: room for the longest enum of a schema (canvas_annotate's kinds). */
const MAX_ISSUE_MESSAGE = 4_000;

/** A tools/call that cannot be run as sent (no name, arguments not an object, unknown tool); the era picks the code. */
export class ToolCallRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolCallRefused";
  }
}

export interface McpServerOptions {
  tools: readonly AnyTool[];
  /** Resource providers (one URI scheme each); none means the resources capability is not advertised. */
  resources?: readonly ResourceProvider[];
  /** Prompts; none listed (none given, or none whose required tools are listed) means no prompts capability. */
  prompts?: readonly Prompt[];
  /** Extra paragraphs for the model, appended to INSTRUCTIONS (e.g. the ChEMBL chains and traps). */
  instructions?: readonly string[];
  pool: WorkerPool;
  info: ServerInfo;
  logger: Logger;
  /**
   * Tools this server knows but an operator left switched off (chembl_dataframe_drop without
   * CHEMBL_DATAFRAME_DROP_ENABLED, a tool whose set CHEMATIC_TOOLSETS leaves out): not listed, and a call
   * answers TOOL_DISABLED naming the setting. One that is also in `tools` stays runnable by the service
   * tools that chain it.
   */
  disabledTools?: readonly DisabledTool[];
  /**
   * Where an answer's rows go when the answer would pass what a host takes (answer-cap.ts): a new canvas owned by
   * the caller. Without it such an answer is cut, saying where the rest starts.
   */
  stageRows?: RowStager | undefined;
  /** Who is shown the MCP Apps (default auto: the clients that declare the extension). */
  apps?: AppsMode;
}

/** A tool switched off by configuration, and the variable that switches it on. */
export interface DisabledTool {
  name: string;
  /** The environment variable that enables it. */
  setting: string;
  /** The value to give it. */
  value: string;
}

export class McpServer {
  readonly registry: ToolRegistry;
  readonly resources: ResourceRegistry;
  readonly prompts: PromptRegistry;
  readonly info: ServerInfo;
  readonly instructions: string;
  /** The paragraphs given beyond INSTRUCTIONS (so a derived server can be built with the same text). */
  readonly extraInstructions: readonly string[];
  private readonly pool: WorkerPool;
  private readonly logger: Logger;
  private readonly disabled: ReadonlyMap<string, DisabledTool>;
  private readonly stageRows: RowStager | undefined;
  private readonly appsMode: AppsMode;
  /** Tool calls in progress (the background compilation of validators waits while there are any). */
  private running = 0;

  constructor(options: McpServerOptions) {
    this.disabled = new Map((options.disabledTools ?? []).map((d) => [d.name, d]));
    this.stageRows = options.stageRows;
    this.appsMode = options.apps ?? "auto";
    // A switched-off tool that is registered (a tool set left out) stays reachable for the tools that chain it.
    this.registry = new ToolRegistry(options.tools, new Set(this.disabled.keys()));
    // Schema validators compile in the background while no call runs (see ToolRegistry.warmUp): cold start.
    this.registry.warmUp(() => this.running > 0);
    this.resources = new ResourceRegistry(options.resources ?? []);
    this.prompts = new PromptRegistry(options.prompts ?? [], (tool) => this.registry.get(tool) !== undefined);
    this.extraInstructions = options.instructions ?? [];
    this.instructions = [INSTRUCTIONS, ...this.extraInstructions].join("\n\n");
    this.pool = options.pool;
    this.info = options.info;
    this.logger = options.logger;
  }

  /** A 2026-07-28 request whose `_meta` has already been checked. */
  async handleModern(request: JsonRpcRequest, ctx: CallContext): Promise<JsonObject> {
    const params = request.params ?? {};
    switch (request.method) {
      case "server/discover":
        return wrapResult(
          MODERN_VERSION,
          { supportedVersions: [...SUPPORTED_MODERN_VERSIONS], capabilities: this.capabilities(this.appsFor(ctx)), instructions: this.instructions },
          this.info,
          REGISTRY_TTL_MS,
          this.appsFor(ctx) ? "private" : "public",
        );
      case "tools/list":
        this.checkCursor(params);
        return wrapResult(
          MODERN_VERSION,
          { tools: this.registry.wire(MODERN_VERSION, this.appsFor(ctx)) },
          this.info,
          REGISTRY_TTL_MS,
          this.appsFor(ctx) ? "private" : "public",
        );
      case "tools/call":
        return this.callTool(params, MODERN_VERSION, ctx);
      case "resources/list":
      case "resources/templates/list":
      case "resources/read": {
        const { ttlMs, ...payload } = await this.handleResources(request.method, params, ctx);
        const scope = request.method === "resources/list" && this.appsFor(ctx) ? "private" : "public";
        return wrapResult(MODERN_VERSION, payload, this.info, ttlMs, scope);
      }
      case "prompts/list":
        this.checkPrompts(request.method, params);
        // Cacheable as tools/list is: the prompts change only with a release or other tool sets (a restart).
        return wrapResult(MODERN_VERSION, { prompts: this.prompts.list(MODERN_VERSION) }, this.info, PROMPT_LIST_TTL_MS);
      case "prompts/get":
        this.checkPrompts(request.method);
        return wrapResult(MODERN_VERSION, this.prompts.get(params), this.info);
      default:
        throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${request.method}`);
    }
  }

  /** Whether `method` is served in `era` (a request for one that is not pins no era on its connection). */
  serves(era: Era, method: string): boolean {
    const resources = !this.resources.empty && (method === "resources/list" || method === "resources/templates/list" || method === "resources/read");
    const prompts = !this.prompts.empty && (method === "prompts/list" || method === "prompts/get");
    if (resources || prompts || method === "tools/list" || method === "tools/call") return true;
    return lifecycleMethods(era).includes(method);
  }

  private capabilities(apps: boolean): JsonObject {
    const capabilities: JsonObject = { tools: {} };
    // The apps' pages alone are resources only for the clients shown them: any other client sees no resources.
    if (this.resources.schemes().some((scheme) => scheme !== "ui" || apps)) capabilities.resources = {};
    if (!this.prompts.empty) capabilities.prompts = {};
    // The extension is advertised to the clients that declared it (and only when the apps are served).
    if (apps) capabilities.extensions = { [UI_EXTENSION_ID]: {} };
    return capabilities;
  }

  /** Whether this caller is shown the MCP Apps: the apps are served (their resources exist) and CHEMATIC_APPS allows. */
  appsFor(ctx: Pick<CallContext, "apps">): boolean {
    if (this.appsMode === "off" || !this.resources.has("ui")) return false;
    return this.appsMode === "on" || ctx.apps === true;
  }

  /** prompts/list and prompts/get exist only with prompts (then a cursor on the list is refused, as on every list). */
  private checkPrompts(method: string, params?: JsonObject): void {
    if (this.prompts.empty) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
    if (params) this.checkCursor(params);
  }

  /**
   * resources/list, resources/templates/list, resources/read: the payload and its cache lifetime (ttlMs, for the
   * versions whose results carry it). Without providers these methods do not exist.
   */
  private async handleResources(method: string, params: JsonObject, ctx: CallContext): Promise<JsonObject & { ttlMs: number }> {
    if (this.resources.empty) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
    if (method === "resources/list") {
      this.checkCursor(params);
      // The ui:// apps are listed to the clients shown them; any client may still read one by its URI.
      const apps = this.appsFor(ctx);
      return { resources: this.resources.list().filter((r) => apps || !r.uri.startsWith("ui:")), ttlMs: RESOURCE_LIST_TTL_MS };
    }
    if (method === "resources/templates/list") {
      this.checkCursor(params);
      return { resourceTemplates: this.resources.templates(), ttlMs: RESOURCE_LIST_TTL_MS };
    }
    const { provider, uri } = this.resources.resolve(params);
    try {
      const contents = await this.withBudget(`read ${uri}`, provider.budgetMs, ctx, (serviceCtx) => this.resources.read(provider, uri, serviceCtx));
      return { contents, ttlMs: provider.readTtlMs };
    } catch (e) {
      if (e instanceof ToolError) {
        // resources/read has no isError result: a failure the caller can act on travels as a JSON-RPC
        // error carrying the same sanitised {code, hint, details} a tool failure would. (The Connection logs
        // the failed request with this code.)
        throw new RpcError(INTERNAL_ERROR, `${e.code}: ${e.message}`, { ...e.toPayload(), uri });
      }
      throw e;
    }
  }

  /** A legacy request; `version` is what initialize negotiated on this connection. */
  async handleLegacy(request: JsonRpcRequest, version: LegacyVersion, ctx: CallContext): Promise<{ result: JsonObject; negotiated?: LegacyVersion }> {
    const params = request.params ?? {};
    switch (request.method) {
      case "initialize": {
        const negotiated = negotiateLegacyVersion(params.protocolVersion);
        const result: JsonObject = {
          protocolVersion: negotiated,
          // The apps are negotiated here for the whole connection (the Connection keeps what the client declared).
          capabilities: this.capabilities(this.appsFor({ apps: declaresApps(isJsonObject(params.capabilities) ? params.capabilities : undefined) })),
          serverInfo: { name: this.info.name, version: this.info.version },
        };
        // 2024-11-05 answers exactly as the reference did; later versions also get the instructions.
        if (features(negotiated).instructions) result.instructions = this.instructions;
        return { result, negotiated };
      }
      case "ping":
        return { result: {} };
      case "tools/list":
        return { result: wrapResult(version, { tools: this.registry.wire(version, this.appsFor(ctx)) }, this.info, REGISTRY_TTL_MS) };
      case "tools/call":
        return { result: await this.callTool(params, version, ctx) };
      case "resources/list":
      case "resources/templates/list":
      case "resources/read": {
        const { ttlMs, ...payload } = await this.handleResources(request.method, params, ctx);
        return { result: wrapResult(version, payload, this.info, ttlMs) };
      }
      case "prompts/list":
        this.checkPrompts(request.method, params);
        return { result: wrapResult(version, { prompts: this.prompts.list(version) }, this.info, PROMPT_LIST_TTL_MS) };
      case "prompts/get":
        this.checkPrompts(request.method);
        return { result: wrapResult(version, this.prompts.get(params), this.info) };
      default:
        throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${request.method}`);
    }
  }

  private checkCursor(params: JsonObject): void {
    // Every list fits one page, so this server never hands out a cursor.
    if (params.cursor !== undefined) throw new RpcError(INVALID_PARAMS, "Invalid params: unknown cursor (this list has a single page)");
  }

  /** tools/call: the call run once (runTool), then wrapped for the era (shape.ts). */
  private async callTool(params: JsonObject, version: ProtocolVersion, ctx: CallContext): Promise<JsonObject> {
    let outcome: ToolOutcome;
    try {
      // A version whose requests carry the client's capabilities has a call's required capabilities checked.
      const call: CallContext = readsMeta(version, META_CLIENT_CAPABILITIES)
        ? { ...ctx, clientCapabilities: ctx.clientCapabilities ?? {} }
        : { ...ctx, clientCapabilities: undefined };
      outcome = await this.runTool(params.name, params.arguments, call);
      // A client shown the apps has the tool's app rendered beside a success: one line tells the model what it shows.
      const ui = outcome.ok && typeof params.name === "string" && this.appsFor(ctx) ? this.registry.get(params.name)?.tool.ui : undefined;
      const shows = ui && !appOnly({ ui }) ? APP_SHOWS[ui.resourceUri] : undefined;
      if (outcome.ok && shows) outcome = { ...outcome, extra: [...outcome.extra, { type: "text", text: shows }] };
    } catch (e) {
      // The version picks the code: 2024-11-05 reports every tools/call problem as -32000, as the reference did.
      if (e instanceof ToolCallRefused) throw new RpcError(features(version).refusedToolCallCode, e.message);
      throw e;
    }
    return shapeOutcome(version, outcome, this.info);
  }

  /**
   * Runs one tool call, the same way for every caller (tools/call in any era, `chematic-mcp call`, doctor):
   * name and arguments checked, required client capabilities (when `clientCapabilities` is given), input
   * validated, the tool run within its budget, its output validated. A domain failure is an outcome;
   * a malformed call throws ToolCallRefused, a missing capability RpcError -32021, an internal failure
   * RpcError -32603 (logged here), a cancelled call CancelledError.
   */
  async runTool(name: unknown, rawArgs: unknown, ctx: CallContext): Promise<ToolOutcome> {
    this.running++;
    try {
      return await this.runToolNow(name, rawArgs, ctx);
    } finally {
      this.running--;
    }
  }

  private async runToolNow(name: unknown, rawArgs: unknown, ctx: CallContext): Promise<ToolOutcome> {
    if (typeof name !== "string" || name.length === 0) throw new ToolCallRefused("Invalid params: tools/call needs a string `name`");
    const args = rawArgs ?? {};
    if (!isJsonObject(args)) throw new ToolCallRefused("Invalid params: `arguments` must be an object");
    const entry = this.registry.get(name);
    if (!entry) {
      const off = this.disabled.get(name);
      if (off) {
        // A tool the operator switched off is a result the agent can act on, not an unknown name.
        const error = new ToolError(
          "TOOL_DISABLED",
          `${name} is switched off on this server`,
          { tool: name, setting: off.setting },
          `Ask the server's operator to set ${off.setting}=${off.value} and restart it to enable ${name}.`,
        );
        return { ok: false, error };
      }
      throw new ToolCallRefused(`Unknown tool: ${name}`);
    }

    const { tool } = entry;
    if (ctx.clientCapabilities !== undefined && tool.requiredClientCapabilities) {
      const declared = ctx.clientCapabilities;
      const missing = tool.requiredClientCapabilities.filter((c) => !isJsonObject(declared[c]));
      if (missing.length > 0) {
        throw new RpcError(MISSING_REQUIRED_CLIENT_CAPABILITY, `Missing required client capability: ${missing.join(", ")} (${name} needs it)`, {
          requiredCapabilities: Object.fromEntries(missing.map((c) => [c, {}])),
        });
      }
    }
    if (!entry.validateInput(args)) {
      const all = describeIssues(entry.validateInput.errors, tool.inputSchema, args);
      // The answer stays small whatever the input (20,000 unknown keys once made a 1 MiB answer): the first
      // MAX_REPORTED_ISSUES issues, each clipped, and the total when there are more.
      // A path can hold a client's key and is clipped short; a message is the schema's words (every allowed value of an
      // enum, which an agent needs whole), clipped only far out.
      const issues = all
        .slice(0, MAX_REPORTED_ISSUES)
        .map((i) => ({ path: clipText(i.path, MAX_ISSUE_TEXT), message: clipText(i.message, MAX_ISSUE_MESSAGE) }));
      const first = issues[0] ?? { path: "/", message: "is invalid" };
      const details: Record<string, unknown> = { path: first.path, issues };
      if (all.length > issues.length) details.issues_total = all.length;
      const error = new ToolError("INVALID_ARGUMENTS", `Invalid arguments for ${name}: ${first.path} ${first.message}`, details);
      return { ok: false, error };
    }

    let value: unknown;
    try {
      const mainForm = tool.kind === "chem" ? tool.mainForm : undefined;
      value = mainForm?.applies(args)
        ? await this.withBudget(tool.name, mainForm.budgetMs ?? tool.budgetMs, ctx, (serviceCtx) => mainForm.run(args, serviceCtx))
        : isListCall(tool, args)
          ? await runListCall(tool, args, { pool: this.pool, validateInput: entry.validateInput, signal: ctx.signal, progress: ctx.progress ?? (() => {}) })
          : await this.execute(tool, args, ctx);
    } catch (e) {
      // The Connection logs every failed call (id, tool, code): TIMEOUT and BUSY at warn.
      if (e instanceof ToolError) return { ok: false, error: e };
      if (e instanceof CancelledError) throw e;
      const detail = e instanceof InternalToolError ? e.detail : ((e as Error)?.stack ?? String(e));
      this.logger.error(`tool ${name} failed unexpectedly`, { detail });
      throw new RpcError(INTERNAL_ERROR, "Internal error");
    }
    const split = splitExtraContent(value);
    if (split === null || !isJsonObject(split.value) || !entry.validateOutput(split.value)) {
      const issues = split === null ? [{ path: "/_extra_content", message: "is not a list of content blocks" }] : describeIssues(entry.validateOutput.errors);
      this.logger.error(`tool ${name} produced output that breaks its outputSchema`, { issues });
      throw new RpcError(INTERNAL_ERROR, "Internal error");
    }
    const textBytes = tool.content ? (v: Record<string, unknown>) => contentTextBytes(tool.content!(v)) : undefined;
    const inputs = Array.isArray(args.smiles_list) ? args.smiles_list : undefined;
    const capped = await capAnswer(split.value, { tool: name, textBytes, stage: this.stageRows, inputs, owner: ctx.owner, signal: ctx.signal });
    const blocks = tool.content?.(capped);
    // A rendered text (the ChEMBL tools' markdown) says what the structured answer's overflow says.
    const overflow = capped.overflow as { note?: string } | undefined;
    const first = blocks?.find((b) => b.type === "text");
    if (first && first.type === "text" && overflow?.note) first.text = `${first.text}\n\n${overflow.note}`;
    return blocks ? { ok: true, value: capped, blocks, extra: split.extra } : { ok: true, value: capped, extra: split.extra };
  }

  private async execute(tool: AnyTool, args: JsonObject, ctx: CallContext): Promise<unknown> {
    const progress: ProgressReporter = ctx.progress ?? (() => {});
    if (tool.kind === "chem") {
      if (!tool.resolveOnMain) return this.pool.run(tool.name, args, { budgetMs: tool.budgetMs, signal: ctx.signal, onProgress: progress, caller: ctx.owner });
      // The one place main-thread data (a canvas query) becomes a chemistry tool's arguments; the worker then
      // gets what the budget has left.
      const resolve = tool.resolveOnMain;
      const started = Date.now();
      const resolved = (await this.withBudget(tool.name, tool.budgetMs, ctx, (serviceCtx) => resolve(args, serviceCtx))) as JsonObject;
      const left = Math.max(1, tool.budgetMs - (Date.now() - started));
      return this.pool.run(tool.name, resolved, { budgetMs: left, signal: ctx.signal, onProgress: progress, caller: ctx.owner });
    }
    // A call with a progress token may get the tool's longer budget: its progress keeps the client waiting.
    const budgetMs =
      ctx.progress !== undefined && tool.progressBudgetMs ? Math.min(MAX_PROGRESS_BUDGET_MS, Math.max(tool.budgetMs, tool.progressBudgetMs())) : tool.budgetMs;
    return this.withBudget(tool.name, budgetMs, ctx, (serviceCtx) => tool.run(args, serviceCtx));
  }

  /** A chemistry tool called from a service tool: same pool, same cancellation, within the caller's budget; its progress to `onProgress`. */
  private runChemTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    callerBudgetMs: number,
    onProgress: ProgressReporter | undefined,
  ): Promise<unknown> {
    const entry = this.registry.get(name) ?? this.registry.hidden(name);
    if (!entry || entry.tool.kind !== "chem") return Promise.reject(new Error(`no chemistry tool named ${name}`));
    return this.pool.run(name, args, { budgetMs: Math.min(entry.tool.budgetMs, callerBudgetMs), signal, onProgress });
  }

  /** A chemistry tool run over a list from a service tool: the pool's list machinery, within what the caller's budget leaves. */
  private runChemList(
    name: string,
    items: Record<string, unknown>[],
    signal: AbortSignal,
    deadline: number,
    options: ChemListOptions = {},
  ): Promise<ListOutcome[]> {
    // No registry check: worker-only tools (canvas_annotate's rows) are not registered; the workers know them by name.
    const left = Math.max(1, deadline - Date.now());
    return this.pool.runList(name, items, { budgetMs: Math.min(left, options.budgetMs ?? left), signal, onChunk: options.onChunk });
  }

  /**
   * Runs main-thread work (service tools, resource reads) under a time budget: the work sees an AbortSignal
   * that fires on cancellation or at the budget, and the caller gets TIMEOUT (or CancelledError) at once
   * even if the work ignores the signal.
   */
  private async withBudget<T>(what: string, budgetMs: number, ctx: CallContext, work: (serviceCtx: ServiceContext) => Promise<T>): Promise<T> {
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(), budgetMs);
    const signal = AbortSignal.any([ctx.signal, budget.signal]);
    const deadline = Date.now() + budgetMs;
    try {
      return await Promise.race([
        work({
          signal,
          progress: ctx.progress ?? (() => {}),
          deadline,
          progressTracked: ctx.progress !== undefined,
          owner: ctx.owner,
          chem: {
            run: (tool, args, options) =>
              this.runChemTool(tool.name, args as Record<string, unknown>, signal, budgetMs, options?.onProgress) as Promise<ReturnType<typeof tool.run>>,
            runList: (tool, items, options) =>
              this.runChemList(tool.name, items as Record<string, unknown>[], signal, deadline, options) as Promise<
                Array<ChemListOutcome<ReturnType<typeof tool.run>>>
              >,
          },
        }),
        new Promise<never>((_, reject) => {
          const onAbort = () =>
            reject(
              ctx.signal.aborted
                ? new CancelledError()
                : new ToolError("TIMEOUT", `${what} did not finish within its ${budgetMs} ms budget`, { budget_ms: budgetMs }),
            );
          if (signal.aborted) onAbort();
          else signal.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Compiled view of the tool registry: schema validators (JSON Schema 2020-12, ajv) and the wire form of
 * each tool per protocol version. No remote $ref is ever loaded (ajv has no loadSchema here, so an
 * external $ref fails compilation instead of being fetched).
 *
 * Validators are compiled on first use, and in the background once the server is up (warmUp), not in
 * the constructor: compiling every tool's two schemas took 1.5-2.5 s of the main thread on the 2-core
 * benchmark machine (and grows with each tool), all of it before the first tools/list could be answered
 * (docs/benchmarks.md, cold start). test/tools/registry.test.ts compiles every schema in strict mode, so
 * a schema that does not compile still fails CI rather than a call. ajv itself (about a third of the main
 * thread's module loading) is required on the first compile, so it loads after the server is up, not before
 * the first tools/list (docs/performance.md, first answer).
 */
import { createRequire } from "node:module";
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { TOOLSETS, appOnly, type AnyTool, type WireTool } from "../contract/tool.js";
import { MAX_TOOL_BUDGET_MS } from "../contract/limits.js";
import { features, type ProtocolVersion } from "../protocol/eras.js";
import { withListSchemas } from "./list.js";
import { withUnits } from "../contract/units.js";
import { hostInputSchema } from "./host-schema.js";
import { withOverflowProperty } from "./answer-cap.js";
import { MirroredParamError, mirroredParams, type MirroredParam } from "./mirrored-params.js";
import { describeIssues } from "./schema-issues.js";

export { describeIssues };

export interface RegisteredTool {
  readonly tool: AnyTool;
  readonly validateInput: ValidateFunction;
  readonly validateOutput: ValidateFunction;
}

/** A tool whose validators are compiled the first time they are read (see the module comment). */
class LazyEntry implements RegisteredTool {
  private input: ValidateFunction | undefined;
  private output: ValidateFunction | undefined;

  constructor(
    readonly tool: AnyTool,
    private readonly ajv: () => Ajv2020,
  ) {}

  get validateInput(): ValidateFunction {
    return (this.input ??= this.ajv().compile(this.tool.inputSchema));
  }

  get validateOutput(): ValidateFunction {
    return (this.output ??= this.ajv().compile(this.tool.outputSchema));
  }

  get compiled(): boolean {
    return this.input !== undefined && this.output !== undefined;
  }
}

/** How long after start the background compilation of validators begins. */
const WARM_UP_DELAY_MS = 300;
/** How often a background compilation held back by calls in progress looks again. */
const WARM_UP_RETRY_MS = 50;

/**
 * What a host sends a model of the whole tool list (each tool's name, description and input schema; output
 * schemas stay with the host), at most: about 10k tokens, so a host's context is not spent before the first call.
 */
export const MODEL_FACING_BUDGET_BYTES = 40_000;

/** The model-facing bytes of a tool list: name, description and input schema of each, as UTF-8 JSON text. */
export function modelFacingBytes(tools: ReadonlyArray<{ name: string; description?: string; inputSchema: unknown }>): number {
  let total = 0;
  for (const t of tools) total += Buffer.byteLength(t.name) + Buffer.byteLength(t.description ?? "") + Buffer.byteLength(JSON.stringify(t.inputSchema));
  return total;
}

export function createAjv(): Ajv2020 {
  // ajv is CommonJS: required synchronously, on demand (see the module comment).
  const { Ajv2020: Ajv } = createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  const ajv = new Ajv({ strict: true, allErrors: true, validateFormats: false, strictRequired: false });
  // The 2026-07-28 transport's annotation of a parameter mirrored into an Mcp-Param-* header: no validation
  // meaning (the HTTP transport checks the header against the body), declared so strict mode accepts it.
  ajv.addKeyword({ keyword: "x-mcp-header", schemaType: "string" });
  return ajv;
}

/** Tools as a registry holds them, so that a registry built from another's tools keeps them as they are. */
const registeredForms = new WeakSet<AnyTool>();

/** A declared tool with its list schemas (list.ts) and `overflow` allowed in its answers (answer-cap.ts). */
function registeredForm(declared: AnyTool): AnyTool {
  const listed = withListSchemas(declared);
  // Units are stated once (contract/units.ts) and written into every numeric field's description here.
  const tool = { ...listed, outputSchema: withOverflowProperty(withUnits(listed.outputSchema)) } as AnyTool;
  registeredForms.add(tool);
  return tool;
}

export class ToolRegistry {
  private readonly byName = new Map<string, LazyEntry>();
  /** The listed and callable tools, in declaration order (tools/list stays deterministic). */
  private readonly order: LazyEntry[] = [];
  /** Tools registered but switched off (CHEMATIC_TOOLSETS): a service tool may still run them in the pool. */
  private readonly hiddenByName = new Map<string, LazyEntry>();
  private warming = false;
  private readonly wireCache = new Map<string, WireTool[]>();
  /** Each tool's parameters mirrored into Mcp-Param-* headers (x-mcp-header), checked at registration. */
  private readonly mirrored = new Map<string, readonly MirroredParam[]>();

  /**
   * `hidden` names tools an operator switched off (CHEMATIC_TOOLSETS): they are neither listed nor callable,
   * but a service tool that chains one (chembl_search_molecules checks a structure with parse_smiles) still
   * finds it through hidden().
   */
  constructor(tools: readonly AnyTool[], hidden: ReadonlySet<string> = new Set()) {
    let ajv: Ajv2020 | undefined;
    const sharedAjv = () => (ajv ??= createAjv());
    for (const declared of tools) {
      // A per-molecule tool that declares a list gets its smiles_list / fields schemas here (list.ts).
      // Every answer may carry `overflow` (answer-cap.ts: a list staged or cut to keep the answer host-sized).
      const tool = registeredForms.has(declared) ? declared : registeredForm(declared);
      if (tool.budgetMs <= 0 || tool.budgetMs > MAX_TOOL_BUDGET_MS) throw new Error(`tool ${tool.name}: budget out of range`);
      for (const set of [tool.toolset, ...(tool.alsoIn ?? [])]) {
        if (!(TOOLSETS as readonly string[]).includes(set)) throw new Error(`tool ${tool.name}: unknown tool set ${String(set)}`);
      }
      // A content hook replaces the JSON text block: test fixtures (image, audio, resource blocks) and the
      // service tools whose text block is markdown carrying the same data (the ChEMBL tools). A chemistry
      // tool's text block is always its JSON.
      if (tool.content && !tool.testOnly && tool.kind !== "service") throw new Error(`tool ${tool.name}: only a testOnly or service tool may define content`);
      try {
        const params = mirroredParams(tool.inputSchema);
        if (params.length > 0) this.mirrored.set(tool.name, params);
      } catch (e) {
        // A conforming client drops a tool whose x-mcp-header breaks the spec's rules: refuse it here instead.
        if (e instanceof MirroredParamError) throw new Error(`tool ${tool.name}: ${e.message}`, { cause: e });
        throw e;
      }
      if (this.byName.has(tool.name) || this.hiddenByName.has(tool.name)) throw new Error(`duplicate tool name ${tool.name}`);
      const entry = new LazyEntry(tool, sharedAjv);
      if (hidden.has(tool.name)) {
        this.hiddenByName.set(tool.name, entry);
        continue;
      }
      this.byName.set(tool.name, entry);
      this.order.push(entry);
    }
  }

  /**
   * Compiles the validators not compiled yet, from WARM_UP_DELAY_MS after start, one tool per turn of the
   * event loop and only while `busy()` is false: a compile holds the main thread for up to ~200 ms (a large
   * schema, cold), and a call's answer arriving from a worker meanwhile would wait for it (measured: the first
   * canonical_smiles answer waited 150 ms behind one). Timers are unref'd: this never keeps a process alive.
   */
  warmUp(busy: () => boolean = () => false): void {
    if (this.warming) return;
    this.warming = true;
    const pending = this.order.filter((e) => !e.compiled);
    const step = () => {
      if (busy()) {
        setTimeout(step, WARM_UP_RETRY_MS).unref();
        return;
      }
      const entry = pending.shift();
      if (!entry) return;
      void entry.validateInput;
      void entry.validateOutput;
      setTimeout(step, 0).unref();
    };
    // Not before the first requests: a client's initialize and tools/list arrive within a few milliseconds
    // of start and would wait behind ajv's loading and the first compiles (a call compiles its own tool's
    // validators on demand meanwhile).
    setTimeout(step, WARM_UP_DELAY_MS).unref();
  }

  /** The parameters of tool `name` a 2026-07-28 client mirrors into Mcp-Param-* headers (none for an unknown tool). */
  mirroredParams(name: string): readonly MirroredParam[] {
    return this.mirrored.get(name) ?? [];
  }

  /** A listed, callable tool by name. */
  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  /** A tool switched off by the operator's tool sets, for the service tools that chain it (never for tools/call). */
  hidden(name: string): RegisteredTool | undefined {
    return this.hiddenByName.get(name);
  }

  get size(): number {
    return this.order.length;
  }

  names(): string[] {
    return this.order.map((e) => e.tool.name);
  }

  tools(): AnyTool[] {
    return this.order.map((e) => e.tool);
  }

  /**
   * Tools as tools/list carries them in `version`: the reference's fields (name, description, inputSchema,
   * outputSchema), then annotations and title where the version has them (protocol/eras.ts). The input schema is
   * the host's form of the declared one (host-schema.ts): calls are still validated against the declared one.
   * With `apps` (the client declared the MCP Apps extension) a tool with an app carries `_meta.ui`, and the app's
   * own tools (visibility ["app"]) are listed too; without it the list is exactly what it was before apps.
   */
  wire(version: ProtocolVersion, apps = false): WireTool[] {
    const key = `${version}${apps ? "+apps" : ""}`;
    let cached = this.wireCache.get(key);
    if (!cached) {
      const { toolAnnotations, toolTitles } = features(version);
      cached = this.order
        .filter(({ tool }) => apps || !appOnly(tool))
        .map(({ tool }) => {
          const out: WireTool = {
            name: tool.name,
            description: tool.description,
            inputSchema: hostInputSchema(tool.inputSchema),
            outputSchema: tool.outputSchema,
          };
          if (toolAnnotations) out.annotations = { title: tool.title, ...tool.annotations };
          if (toolTitles) out.title = tool.title;
          if (apps && tool.ui) {
            out._meta = { ui: { resourceUri: tool.ui.resourceUri, ...(tool.ui.visibility ? { visibility: [...tool.ui.visibility] } : {}) } };
          }
          return out;
        });
      this.wireCache.set(key, cached);
    }
    return cached;
  }
}

/**
 * Compiled view of the tool registry: schema validators (JSON Schema 2020-12, ajv) and the wire form of
 * each tool per protocol version. Schemas are compiled once at start-up; no remote $ref is ever loaded
 * (ajv has no loadSchema here, so an external $ref fails compilation instead of being fetched).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { AnyTool, WireTool } from "../tools/types.js";
import { MAX_TOOL_BUDGET_MS } from "../protocol/limits.js";

export interface SchemaIssue {
  path: string;
  message: string;
}

export interface RegisteredTool {
  tool: AnyTool;
  validateInput: ValidateFunction;
  validateOutput: ValidateFunction;
}

export type WireFlavour = "2024-11-05" | "2025-03-26" | "full";

export function createAjv(): Ajv2020 {
  return new Ajv2020({ strict: true, allErrors: true, validateFormats: false, strictRequired: false });
}

export function describeIssues(errors: ErrorObject[] | null | undefined): SchemaIssue[] {
  return (errors ?? []).map((e) => {
    let path = e.instancePath || "/";
    let message = e.message ?? "is invalid";
    if (e.keyword === "additionalProperties") {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      path = `${e.instancePath}/${extra}`;
      message = "is not an allowed property";
    } else if (e.keyword === "required") {
      path = `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`;
      message = "is required";
    } else if (e.keyword === "enum") {
      message = `must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
    }
    return { path, message };
  });
}

export class ToolRegistry {
  private readonly byName = new Map<string, RegisteredTool>();
  private readonly order: RegisteredTool[] = [];
  private readonly wireCache = new Map<WireFlavour, WireTool[]>();

  constructor(tools: readonly AnyTool[]) {
    const ajv = createAjv();
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`duplicate tool name ${tool.name}`);
      if (tool.budgetMs <= 0 || tool.budgetMs > MAX_TOOL_BUDGET_MS) throw new Error(`tool ${tool.name}: budget out of range`);
      // A content hook replaces the JSON text block: test fixtures (image, audio, resource blocks) and the
      // service tools whose text block is markdown carrying the same data (the ChEMBL tools). A chemistry
      // tool's text block is always its JSON.
      if (tool.content && !tool.testOnly && tool.kind !== "service") throw new Error(`tool ${tool.name}: only a testOnly or service tool may define content`);
      const entry: RegisteredTool = {
        tool,
        validateInput: ajv.compile(tool.inputSchema),
        validateOutput: ajv.compile(tool.outputSchema),
      };
      this.byName.set(tool.name, entry);
      this.order.push(entry);
    }
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
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
   * Tools as tools/list carries them. 2024-11-05 keeps the reference's fields (name, description,
   * inputSchema, outputSchema); annotations exist from 2025-03-26; title from 2025-06-18.
   */
  wire(flavour: WireFlavour): WireTool[] {
    let cached = this.wireCache.get(flavour);
    if (!cached) {
      cached = this.order.map(({ tool }) => {
        const out: WireTool = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema };
        if (flavour !== "2024-11-05") out.annotations = { title: tool.title, ...tool.annotations };
        if (flavour === "full") out.title = tool.title;
        return out;
      });
      this.wireCache.set(flavour, cached);
    }
    return cached;
  }
}

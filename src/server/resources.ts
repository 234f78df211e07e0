/**
 * The resource registry: routes resources/list, resources/templates/list and resources/read to the
 * provider that owns a URI's scheme. Results are plain objects; the server adds the era's envelope.
 */
import { ToolError } from "../domain/errors.js";
import { INVALID_PARAMS, RpcError, type JsonObject } from "../protocol/jsonrpc.js";
import { MAX_TOOL_BUDGET_MS } from "../contract/limits.js";
import type { ResourceContents, ResourceEntry, ResourceProvider, ResourceTemplate } from "../contract/resource.js";
import type { ServiceContext } from "../contract/tool.js";

/** Lists change only with a new release (a new process), like the tool registry. */
export const RESOURCE_LIST_TTL_MS = 86_400_000;

const MAX_URI_LENGTH = 2048;

export class ResourceRegistry {
  private readonly byScheme = new Map<string, ResourceProvider>();

  constructor(providers: readonly ResourceProvider[]) {
    for (const p of providers) {
      if (!/^[a-z][a-z0-9+.-]*$/.test(p.scheme)) throw new Error(`resource provider scheme ${p.scheme} is not a URI scheme`);
      if (this.byScheme.has(p.scheme)) throw new Error(`duplicate resource scheme ${p.scheme}`);
      if (p.budgetMs <= 0 || p.budgetMs > MAX_TOOL_BUDGET_MS) throw new Error(`resource provider ${p.scheme}: budget out of range`);
      this.byScheme.set(p.scheme, p);
    }
  }

  providers(): ResourceProvider[] {
    return [...this.byScheme.values()];
  }

  get empty(): boolean {
    return this.byScheme.size === 0;
  }

  /** The schemes served. */
  schemes(): string[] {
    return [...this.byScheme.keys()];
  }

  /** Whether a provider serves `scheme`. */
  has(scheme: string): boolean {
    return this.byScheme.has(scheme);
  }

  list(): ResourceEntry[] {
    return [...this.byScheme.values()].flatMap((p) => p.list());
  }

  templates(): ResourceTemplate[] {
    return [...this.byScheme.values()].flatMap((p) => p.templates());
  }

  /** The provider for a resources/read request, or -32602 "Resource not found" when no provider owns the URI. */
  resolve(params: JsonObject): { provider: ResourceProvider; uri: string } {
    const uri = params.uri;
    if (typeof uri !== "string" || uri.length === 0) throw new RpcError(INVALID_PARAMS, "Invalid params: resources/read needs a string `uri`");
    if (uri.length > MAX_URI_LENGTH) throw new RpcError(INVALID_PARAMS, `Invalid params: uri longer than ${MAX_URI_LENGTH} characters`);
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase();
    const provider = scheme ? this.byScheme.get(scheme) : undefined;
    if (!provider) throw resourceNotFound(uri);
    return { provider, uri };
  }

  async read(provider: ResourceProvider, uri: string, ctx: ServiceContext): Promise<ResourceContents[]> {
    try {
      const contents = await provider.read(uri, ctx);
      if (contents.length === 0) throw resourceNotFound(uri); // an empty array is ambiguous (spec): never sent
      return contents;
    } catch (e) {
      if (e instanceof ToolError && e.code === "NOT_FOUND") throw resourceNotFound(uri);
      throw e;
    }
  }
}

function resourceNotFound(uri: string): RpcError {
  return new RpcError(INVALID_PARAMS, "Resource not found", { uri });
}

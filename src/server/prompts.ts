/**
 * The prompt registry: prompts/list and prompts/get for both protocol eras (the server adds each era's
 * envelope). A prompt is listed when every tool it requires is listed (CHEMATIC_TOOLSETS may leave some out);
 * prompts/get checks the arguments against the prompt's declaration and renders text, running nothing.
 * Every refusal is JSON-RPC -32602: an unknown prompt, arguments that are not strings, an argument the prompt
 * does not take, a required one missing or empty, a value too long or with a line break where none belongs.
 */
import { INTERNAL_ERROR, INVALID_PARAMS, RpcError, isJsonObject, type JsonObject } from "../protocol/jsonrpc.js";
import { features, type ProtocolVersion } from "../protocol/eras.js";
import type { Prompt, PromptMessage } from "../contract/prompt.js";

/** prompts/list changes only with a new release or a restart with other tool sets, like tools/list. */
export const PROMPT_LIST_TTL_MS = 86_400_000;

/** A shipped prompt's and argument's name: snake_case, as the tools'. */
const NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** A test fixture's (the conformance suite names its argument resourceUri). */
const FIXTURE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
// Control characters other than tab, line feed and carriage return; a single-line argument refuses those too.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LINE_BREAK = /[\r\n\u0085\u2028\u2029]/;

/** A prompts/list entry: title in the versions that have it (from 2025-06-18, as a tool's). */
export interface WirePrompt {
  name: string;
  title?: string;
  description: string;
  arguments: Array<{ name: string; description: string; required: boolean }>;
}

export class PromptRegistry {
  private readonly byName = new Map<string, Prompt>();

  /** `listed(tool)`: whether the server lists that tool (a prompt requiring one it does not list is left out). */
  constructor(
    prompts: readonly Prompt[],
    private readonly listed: (tool: string) => boolean,
  ) {
    for (const prompt of prompts) {
      const pattern = prompt.testOnly ? FIXTURE_NAME : NAME;
      if (!pattern.test(prompt.name)) throw new Error(`prompt name ${prompt.name} is not snake_case`);
      if (this.byName.has(prompt.name)) throw new Error(`duplicate prompt name ${prompt.name}`);
      const names = new Set<string>();
      for (const arg of prompt.arguments) {
        if (!pattern.test(arg.name) || names.has(arg.name)) throw new Error(`prompt ${prompt.name}: bad or repeated argument name ${arg.name}`);
        if (arg.maxLength < 1) throw new Error(`prompt ${prompt.name}: argument ${arg.name} needs a maxLength`);
        names.add(arg.name);
      }
      for (const tool of prompt.requires) if (!prompt.chains.includes(tool)) throw new Error(`prompt ${prompt.name}: requires ${tool} but does not chain it`);
      if (prompt.requires.every((tool) => this.listed(tool))) this.byName.set(prompt.name, prompt);
    }
  }

  get empty(): boolean {
    return this.byName.size === 0;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The listed prompts themselves (a derived server, such as the conformance fixture, registers them again). */
  prompts(): Prompt[] {
    return [...this.byName.values()];
  }

  /** The prompts in declaration order, as prompts/list carries them in `version` (with a title where it has them). */
  list(version: ProtocolVersion): WirePrompt[] {
    const { promptTitles } = features(version);
    return [...this.byName.values()].map((p) => ({
      name: p.name,
      ...(promptTitles ? { title: p.title } : {}),
      description: p.description,
      arguments: p.arguments.map((a) => ({ name: a.name, description: a.description, required: a.required })),
    }));
  }

  /** prompts/get: `{ description, messages }`, or RpcError -32602 for a request it cannot render. */
  get(params: JsonObject): { description: string; messages: PromptMessage[] } {
    const name = params.name;
    if (typeof name !== "string" || name.length === 0) throw new RpcError(INVALID_PARAMS, "Invalid params: prompts/get needs a string `name`");
    const prompt = this.byName.get(name);
    if (!prompt) throw new RpcError(INVALID_PARAMS, `Invalid params: unknown prompt ${JSON.stringify(name.slice(0, 200))}`, { prompts: this.names() });
    const raw = params.arguments ?? {};
    if (!isJsonObject(raw)) throw new RpcError(INVALID_PARAMS, "Invalid params: `arguments` must be an object of strings");
    const declared = new Map(prompt.arguments.map((a) => [a.name, a]));
    const unknown = Object.keys(raw).filter((k) => !declared.has(k));
    if (unknown.length > 0) {
      throw new RpcError(INVALID_PARAMS, `Invalid params: ${prompt.name} takes no argument ${unknown.map((k) => JSON.stringify(k.slice(0, 100))).join(", ")}`, {
        arguments: [...declared.keys()],
      });
    }
    const args: Record<string, string> = {};
    const missing: string[] = [];
    for (const arg of prompt.arguments) {
      const value = raw[arg.name];
      if (value !== undefined && value !== null && typeof value !== "string") {
        throw new RpcError(INVALID_PARAMS, `Invalid params: argument ${arg.name} must be a string`, { argument: arg.name });
      }
      const text = typeof value === "string" ? value.trim() : "";
      if (text === "") {
        if (arg.required) missing.push(arg.name);
        continue;
      }
      if (text.length > arg.maxLength) {
        throw new RpcError(INVALID_PARAMS, `Invalid params: argument ${arg.name} is longer than ${arg.maxLength} characters`, {
          argument: arg.name,
          max_length: arg.maxLength,
        });
      }
      if (CONTROL.test(text) || (!arg.multiline && LINE_BREAK.test(text))) {
        throw new RpcError(INVALID_PARAMS, `Invalid params: argument ${arg.name} holds a control character${arg.multiline ? "" : " or a line break"}`, {
          argument: arg.name,
        });
      }
      args[arg.name] = text;
    }
    if (missing.length > 0) {
      throw new RpcError(INVALID_PARAMS, `Invalid params: ${prompt.name} needs the argument${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`, {
        missing,
      });
    }
    const problem = prompt.check?.(args);
    if (problem !== undefined) throw new RpcError(INVALID_PARAMS, `Invalid params: ${problem}`);
    const messages = prompt.render({ args, has: (tool) => this.listed(tool) });
    // A shipped prompt renders text only (the contract); a breach is this server's fault, not the caller's.
    if (!prompt.testOnly && messages.some((m) => m.content.type !== "text")) throw new RpcError(INTERNAL_ERROR, "Internal error");
    return { description: prompt.description, messages };
  }
}

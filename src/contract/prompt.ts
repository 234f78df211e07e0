/**
 * The prompt contract (floor 1: it imports only the contract and the domain). A prompt is a message template a
 * client shows in its menu (prompts/list) and fills in (prompts/get): its arguments are strings, and it renders
 * messages without running anything (no tool call, no network). A workflow prompt names the tools it chains as
 * steps; the server renders only the steps whose tools it lists (CHEMATIC_TOOLSETS may leave some out).
 */
import type { ContentBlock } from "./tool.js";

interface PromptArgument {
  /** snake_case; an argument that takes a molecule has `smiles` in its name. */
  name: string;
  description: string;
  required: boolean;
  /** Longest value accepted, in characters (a longer one is -32602). */
  maxLength: number;
  /**
   * Whether the value may span lines (a list of molecules, one per line). A single-line argument refuses a
   * line break or another control character (-32602).
   */
  multiline?: boolean;
}

/** One message of a prompts/get result. The shipped prompts render text only; test fixtures may render other blocks. */
export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

/** What a prompt's render sees: its arguments (checked against its declaration) and the tools the server lists. */
export interface PromptContext {
  /** The arguments given, trimmed; an optional one not given is absent. */
  args: Readonly<Record<string, string>>;
  /** Whether the server lists (and accepts calls to) a tool of this name. */
  has(tool: string): boolean;
}

export interface Prompt {
  name: string;
  /** What a client shows in its menu (prompts/list from 2025-06-18). */
  title: string;
  description: string;
  arguments: readonly PromptArgument[];
  /**
   * Tools the prompt cannot do without: it is listed (and served) only when the server lists them all. The
   * tools it merely mentions are dropped from its text when absent (PromptContext.has).
   */
  requires: readonly string[];
  /** Every tool the prompt may name (checked against the registry by the tests). */
  chains: readonly string[];
  /**
   * A check of the arguments beyond their declaration (e.g. how many molecules a list holds): the problem in a
   * sentence, or undefined. A problem is refused as invalid params (-32602), like a missing argument.
   */
  check?(args: Readonly<Record<string, string>>): string | undefined;
  /** Registered only by test fixtures (the conformance suite's prompts may render images and resources). */
  testOnly?: boolean;
  render(ctx: PromptContext): PromptMessage[];
}

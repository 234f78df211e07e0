/**
 * Adversarial-input limits, shared by every transport (stdio and HTTP apply the same numbers) and by the
 * tools that size their answers to them (part of the contract, floor 1).
 * The values are the reference server's, so a client that works with one works with the other.
 */
export const MAX_REQUEST_BYTES = 1024 * 1024;
export const MAX_RESPONSE_BYTES = 1024 * 1024;
export const MAX_JSON_DEPTH = 64;
export const MAX_ARRAY_LENGTH = 10_000;
export const MAX_STRING_BYTES = 256 * 1024;
/**
 * The most bytes either surface of a tool answer (the content text, the structured result) may hold: about 20k
 * tokens, under Claude Code's 25,000-token default for a tool result (MAX_MCP_OUTPUT_TOKENS). Larger answers are
 * staged on a canvas or cut (src/server/answer-cap.ts), or refused by the tool with a typed error.
 */
export const MAX_ANSWER_BYTES = 80_000;
/** No tool may run longer than this: clients commonly give up at 60 s. */
export const MAX_TOOL_BUDGET_MS = 55_000;
/** A call with a progress token, whose progress keeps the client's timeout alive, may run this long at most. */
export const MAX_PROGRESS_BUDGET_MS = 620_000;

/** A client-chosen string cut to `max` characters for an answer or a log line ("..." marks the cut). */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}

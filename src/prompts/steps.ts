/**
 * How a workflow prompt writes its plan: numbered steps, each naming the tool it calls and the arguments as
 * JSON (so a SMILES or a name is quoted and escaped exactly as the call needs it). A step whose tool the
 * server does not list (CHEMATIC_TOOLSETS left its set out) is dropped and the rest renumbered.
 */
import type { PromptContext, PromptMessage } from "../contract/prompt.js";

export interface Step {
  /** The tool the step calls; a step without one is advice between calls. */
  tool?: string;
  /** The call's arguments as JSON (placeholders for values from an earlier step are written as <...>). */
  args?: Record<string, unknown>;
  /** What the step is for and what to read in its answer. */
  text: string;
}

/** The numbered plan of the steps whose tools are listed. */
export function plan(steps: readonly Step[], ctx: PromptContext): string {
  return steps
    .filter((s) => s.tool === undefined || ctx.has(s.tool))
    .map((s, i) => {
      const call = s.tool === undefined ? "" : `\`${s.tool}\`${s.args ? ` ${JSON.stringify(s.args)}` : ""}: `;
      return `${i + 1}. ${call}${s.text}`;
    })
    .join("\n");
}

/** One user message of text (every shipped prompt renders text only). */
export function userText(text: string): PromptMessage[] {
  return [{ role: "user", content: { type: "text", text } }];
}

/** The tools a list of steps names, in order, once each (a prompt's `chains`). */
export function toolsOf(...lists: ReadonlyArray<readonly Step[]>): string[] {
  return [...new Set(lists.flat().flatMap((s) => (s.tool ? [s.tool] : [])))];
}

/** A name as an SQL identifier: bare when it is a plain lower-case name, else double-quoted (a CSV's "pIC50"). */
export function sqlName(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** A canvas table name as canvas_import and the set tools take it (and the tables they derive from it). */
export const TABLE_NAME = /^[a-z][a-z0-9_]{0,62}$/;

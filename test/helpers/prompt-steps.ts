/** The numbered steps of a rendered workflow prompt (src/prompts/steps.ts writes them), as the prompt tests read them. */

export interface PlanStep {
  tool: string;
  args: Record<string, unknown>;
}

/** Each numbered step that calls a tool: its name and its arguments (the JSON after the name, up to where its braces balance outside strings). */
export function planSteps(text: string): PlanStep[] {
  return [...text.matchAll(/^\d+\. `([a-z0-9_]+)` (\{.*)$/gm)].map((m) => {
    const rest = m[2]!;
    let depth = 0;
    let inString = false;
    for (let i = 0; i < rest.length; i++) {
      const c = rest[i];
      if (inString) {
        if (c === "\\") i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) return { tool: m[1]!, args: JSON.parse(rest.slice(0, i + 1)) as Record<string, unknown> };
    }
    throw new Error(`unbalanced arguments: ${rest.slice(0, 200)}`);
  });
}

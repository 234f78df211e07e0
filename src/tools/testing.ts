/**
 * Test-only tools, registered only when CHEMATIC_TEST_TOOLS is on. They exist so tests can prove what
 * the real tools cannot show on demand: a slow call, a call past its budget, a crashing handler.
 */
import type { ChemTool } from "./types.js";

const NO_SIDE_EFFECTS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

export const testSleepTool: ChemTool<{ ms: number }> = {
  kind: "chem",
  name: "test_sleep",
  title: "Test: busy wait",
  description: "Test fixture: keeps its worker busy for `ms` milliseconds (CPU-bound, like a slow chemistry call), then answers.",
  annotations: NO_SIDE_EFFECTS,
  inputSchema: {
    type: "object",
    properties: { ms: { type: "integer", minimum: 0, maximum: 60_000, description: "How long to stay busy." } },
    required: ["ms"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: { slept_ms: { type: "integer", description: "Milliseconds spent." } },
    required: ["slept_ms"],
    additionalProperties: false,
  },
  errors: [],
  budgetMs: 1_500,
  testOnly: true,
  run({ ms }, { progress }) {
    const start = Date.now();
    let reported = 0;
    while (Date.now() - start < ms) {
      const step = Math.floor(((Date.now() - start) / ms) * 4);
      if (step > reported) {
        reported = step;
        progress(step, 4, "sleeping");
      }
    }
    return { slept_ms: Date.now() - start };
  },
};

export const testCrashTool: ChemTool<{ mode: "throw" | "bad_output" | "stdout" }> = {
  kind: "chem",
  name: "test_crash",
  title: "Test: failing handler",
  description:
    "Test fixture: throws an unexpected exception (mode throw), returns output that breaks its outputSchema (mode bad_output), " +
    "or prints to its own stdout before answering (mode stdout), which must never reach the protocol channel.",
  annotations: NO_SIDE_EFFECTS,
  inputSchema: {
    type: "object",
    properties: { mode: { type: "string", enum: ["throw", "bad_output", "stdout"], description: "How to fail." } },
    required: ["mode"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: { ok: { type: "boolean", description: "Never sent." } },
    required: ["ok"],
    additionalProperties: false,
  },
  errors: [],
  budgetMs: 5_000,
  testOnly: true,
  run({ mode }) {
    if (mode === "throw") throw new Error("deliberate failure with a secret path /etc/secret");
    if (mode === "stdout") {
      process.stdout.write("stray output from a worker\n");
      return { ok: true };
    }
    return { ok: "not a boolean" } as unknown as { ok: boolean };
  },
};

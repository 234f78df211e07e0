/**
 * A tool the operator left switched off (chembl_dataframe_drop without CHEMBL_DATAFRAME_DROP_ENABLED) is
 * not listed, and a call to it is a tool result with isError and TOOL_DISABLED naming the variable that
 * enables it, not a JSON-RPC "Unknown tool".
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createApp, type App } from "../../src/app.js";
import { MODERN_VERSION } from "../../src/protocol/eras.js";
import { shapeOutcome } from "../../src/server/shape.js";

let app: App;
before(() => {
  app = createApp({ ...process.env, CHEMBL_DATAFRAME_DROP_ENABLED: "false", CHEMATIC_WORKERS: "1" }, {}, { lazyWorkers: true });
});
after(() => app.close());

test("the disabled drop tool answers isError with TOOL_DISABLED and its enable hint, not Unknown tool", async () => {
  assert.ok(!app.server.registry.wire(MODERN_VERSION).some((t) => t.name === "chembl_dataframe_drop"), "not listed");
  const outcome = await app.server.runTool("chembl_dataframe_drop", { canvas_id: "cv_aaaaaaaaaaaaaaaaaaaaaaaa" }, { signal: new AbortController().signal });
  assert.equal(outcome.ok, false);
  const wire = shapeOutcome(MODERN_VERSION, outcome, app.server.info) as {
    isError?: boolean;
    structuredContent?: { error: { code: string; hint: string; details: Record<string, unknown> } };
  };
  assert.equal(wire.isError, true);
  assert.equal(wire.structuredContent!.error.code, "TOOL_DISABLED");
  assert.equal(wire.structuredContent!.error.details.setting, "CHEMBL_DATAFRAME_DROP_ENABLED");
  assert.match(wire.structuredContent!.error.hint, /CHEMBL_DATAFRAME_DROP_ENABLED=true/);
});

test("a name no server knows is still Unknown tool", async () => {
  await assert.rejects(app.server.runTool("chembl_dataframe_frobnicate", {}, { signal: new AbortController().signal }), /Unknown tool/);
});

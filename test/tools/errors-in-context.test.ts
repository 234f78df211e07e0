/**
 * Errors that fit where they happen (issue 34 item 4). A mistyped canvas_id on a server without named replicas (stdio,
 * or HTTP without CHEMATIC_REPLICA_ID) says the ID is not this server's, not that a load balancer misrouted it; with
 * named replicas the replica wording stays. An unknown canvas_annotate column kind lists every kind there is, with
 * no "must be object" from the alternative the caller never meant.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { newCanvasId } from "../../src/domain/canvas/ids.js";
import { ANNOTATION_KINDS } from "../../src/tools/canvas_annotate.js";
import { runCli } from "../helpers/server-process.js";

type ErrorAnswer = { error: { code: string; message: string; hint: string; details: { reason?: string; issues?: Array<{ path: string; message: string }> } } };

test("a canvas_id this unnamed server never made is unknown here, not on another replica", async () => {
  const mistyped = newCanvasId({ replica: "zzz", run: "AbCd" });
  const { stderr } = await runCli(["call", "chembl_dataframe_query", JSON.stringify({ canvas_id: mistyped, sql: "SELECT 1" })], {
    CHEMATIC_LOG_LEVEL: "error",
  });
  const { error } = JSON.parse(stderr.slice(stderr.indexOf("{"))) as ErrorAnswer;
  assert.equal(error.code, "CANVAS_NOT_FOUND");
  assert.equal(error.details.reason, "unknown");
  assert.match(error.message, /not made by this server process/);
  assert.doesNotMatch(`${error.message} ${error.hint}`, /replica|load balancer/i);

  // Named replicas: the ID's replica part means something, and the answer says which replica holds it.
  const named = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 1_000, replicaId: "r1" });
  try {
    const e = named.notFound(newCanvasId({ replica: "r2", run: "AbCd" }));
    assert.equal(e.details.reason, "other_replica");
    assert.match(e.hint, /load balancer/);
  } finally {
    await named.close();
  }
});

test("an unknown canvas_annotate kind is answered with every kind there is, and only that", async () => {
  const args = { canvas_id: newCanvasId(), table: "t", columns: ["nope"] };
  const { stderr } = await runCli(["call", "canvas_annotate", JSON.stringify(args)], { CHEMATIC_LOG_LEVEL: "error" });
  const { error } = JSON.parse(stderr.slice(stderr.indexOf("{"))) as ErrorAnswer;
  assert.equal(error.code, "INVALID_ARGUMENTS");
  assert.deepEqual(
    error.details.issues!.map((i) => i.path),
    ["/columns/0"],
  );
  const message = error.details.issues![0]!.message;
  assert.doesNotMatch(message, /must be object|\.\.\./);
  for (const kind of ANNOTATION_KINDS) assert.ok(message.includes(`"${kind}"`), `${kind} is listed`);
});

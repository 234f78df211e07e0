/**
 * Progress of chemistry calls that take seconds, through the real server over stdio: generate_3d reports each
 * step of its conformer build (from a worker), and cluster_molecules' canvas form (a main-thread form that runs
 * the tool in a worker through ctx.chem.run) passes the worker's progress on to the client, then its own last step.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ServerProcess, type Message } from "../helpers/server-process.js";

const SLOW_MACHINE_MS = 120_000;

/** The call's progress notifications: its token on each, values increasing, none past its total, all before the answer. */
function progressOf(s: ServerProcess, id: number, token: string): Array<{ progress: number; total?: number; message?: string }> {
  const answerAt = s.messages.findIndex((m) => m.id === id && m.method === undefined);
  assert.ok(answerAt >= 0, "answered");
  const mine = (m: Message) => m.method === "notifications/progress" && m.params?.progressToken === token;
  const notes = s.messages.filter(mine).map((m) => m.params as { progress: number; total?: number; message?: string });
  assert.ok(s.messages.findLastIndex(mine) < answerAt, "every notification comes before the answer");
  for (let i = 1; i < notes.length; i++) assert.ok(notes[i]!.progress > notes[i - 1]!.progress, `increasing: ${JSON.stringify(notes)}`);
  for (const n of notes) if (n.total !== undefined) assert.ok(n.progress <= n.total, `within its total: ${JSON.stringify(n)}`);
  return notes;
}

test("generate_3d reports its conformer build: the rigid fragments, then each conformer minimised", async () => {
  const s = new ServerProcess({ CHEMATIC_WORKERS: "1" });
  try {
    const r = await s.modernCall(
      1,
      "generate_3d",
      { smiles: "CCCCOc1ccc(cc1)C(=O)NCCN(C)C", num_conformers: 3, seed: 11 },
      { progressToken: "g3d" },
      SLOW_MACHINE_MS,
    );
    const out = r.result!.structuredContent as { conformers: unknown[] };
    assert.ok(out.conformers.length >= 1);
    const notes = progressOf(s, 1, "g3d");
    const messages = notes.map((n) => n.message ?? "");
    assert.match(messages[0]!, /rigid fragments/);
    assert.ok(
      messages.some((m) => /^rigid fragments built/.test(m)),
      messages.join(" | "),
    );
    const minimised = messages.filter((m) => /^\d+ of 3 conformers minimised/.test(m));
    assert.ok(minimised.length >= out.conformers.length, `one report per conformer minimised: ${messages.join(" | ")}`);
    assert.equal(notes.at(-1)!.total, 4, "the fragments, then the 3 conformers asked for");
  } finally {
    await s.close();
  }
});

/** 1,200 distinct small molecules: alkyl chains on either side of a phenol ether, the second one bound by carbon or by nitrogen. */
function library(): string[] {
  const list: string[] = [];
  for (let a = 1; a <= 20; a++) for (let b = 1; b <= 30; b++) for (const x of ["", "N"]) list.push(`${"C".repeat(a)}Oc1ccc(${x}${"C".repeat(b)})cc1`);
  return list;
}

test("cluster_molecules on a canvas passes the worker's progress (fingerprints, then pairs) on, then the write", async () => {
  const s = new ServerProcess({ CHEMATIC_WORKERS: "1" });
  try {
    const smiles = library();
    const imported = await s.modernCall(1, "canvas_import", { smiles_list: smiles }, {}, SLOW_MACHINE_MS);
    const canvasId = (imported.result!.structuredContent as { canvas_id: string }).canvas_id;
    const r = await s.modernCall(2, "cluster_molecules", { canvas_id: canvasId, table: "library" }, { progressToken: "cl" }, SLOW_MACHINE_MS);
    const out = r.result!.structuredContent as { rows_clustered: number; cluster_count: number };
    assert.equal(out.rows_clustered, smiles.length);
    const notes = progressOf(s, 2, "cl");
    const messages = notes.map((n) => n.message ?? "");
    assert.ok(
      messages.some((m) => /^500 of 1200 fingerprints$/.test(m)),
      messages.join(" | "),
    );
    assert.ok(
      messages.some((m) => /pairs compared \(Butina\)$/.test(m)),
      messages.join(" | "),
    );
    const last = notes.at(-1)!;
    assert.equal(last.message, `cluster_id and is_centroid written to ${smiles.length} rows`);
    assert.equal(last.progress, last.total);
    assert.equal(last.total, 2 * smiles.length + 1, "fingerprints, pairs, then the write");
  } finally {
    await s.close();
  }
});

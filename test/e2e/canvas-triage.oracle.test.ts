/**
 * Issue 31's acceptance: a whole triage on the canvas through the official client (@modelcontextprotocol/client
 * 2.x over stdio, pinned to 2026-07-28). A 5,000-record SDF written by native RDKit (NCI molecules with data items,
 * HCl salts and repeats of earlier records, hydrates, assigned stereoisomers, macrocycles, metals, zwitterions,
 * three records RDKit cannot sanitise) goes through import with standardisation and deduplication, the descriptors
 * with every alert and drug-likeness set, Butina clusters, a MaxMin pick of 50, scaffolds and a grid of one cluster:
 * at most 9 calls and 20 KB of content text in all, no molecule sent by the client after the import (a path). Then,
 * outside the triage's count, the test reads the table back and compares every computed column with native RDKit
 * 2022.09 on the same records (scripts/oracle-triage.py, scripts/oracle-workbench.py), parents included.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CLI_PATH } from "../helpers/server-process.js";
import { nativeRDKitMissing, oracleOutput, skipOracle } from "../helpers/oracle.js";

const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const RECORDS = 5_000;
const THRESHOLD = 0.4;
const PICKS = 50;
const MAX_CALLS = 9;
const MAX_TEXT_BYTES = 20_000;
/** The descriptor, alert and drug-likeness columns of the triage (canvas_annotate kinds). */
const KINDS = [
  "mw",
  "logp",
  "tpsa",
  "hbd",
  "hba",
  "rotatable_bonds",
  "heavy_atom_count",
  "qed",
  "lipinski_violations",
  "fsp3",
  "ring_count",
  "aromatic_ring_count",
  "stereocentre_count",
  "unassigned_stereocentre_count",
  "formal_charge",
  "pains",
  "brenk",
  "druglikeness",
] as const;

type Row = Record<string, unknown>;
type CallResult = { structuredContent?: Row; content?: Array<{ type: string; text?: string }>; isError?: boolean };

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), "chematic-triage-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function python(script: string, request: unknown): Promise<Row> {
  return JSON.parse((await oracleOutput({ script }, { input: JSON.stringify(request), timeoutMs: 600_000 })).trim()) as Row;
}

test("a 5,000-record SDF triaged on the canvas in at most 9 calls and 20 KB of text; every computed column equals native RDKit", { timeout: 1_200_000 }, async (t) => {
  const missing = existsSync(NCI) ? await nativeRDKitMissing() : `${NCI} is absent (Debian package rdkit-data)`;
  if (missing) return skipOracle(t, `native RDKit oracle unavailable: ${missing}`);
  const made = await python("oracle-triage.py", { make: join(dir, "triage.sdf"), n: RECORDS });
  assert.equal(made.records, RECORDS);

  const client = new Client({ name: "triage-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const env = { ...process.env, CHEMATIC_WORKERS: "2", CHEMATIC_LOG_LEVEL: "warn", CHEMATIC_IMPORT_DIR: dir } as Record<string, string>;
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_PATH], env, stderr: "pipe" }));
  try {
    const transcript: string[] = [];
    let calls = 0;
    let textBytes = 0;
    const call = async (name: string, args: Row): Promise<Row> => {
      calls++;
      const started = Date.now();
      const result = (await client.callTool({ name, arguments: args }, { timeout: 600_000, resetTimeoutOnProgress: true, onprogress: () => {} })) as CallResult;
      const texts = (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text ?? "");
      const bytes = texts.reduce((n, s) => n + Buffer.byteLength(s, "utf8"), 0);
      textBytes += bytes;
      transcript.push(`call ${calls}: ${name} ${JSON.stringify(args)} -> ${bytes} B of text in ${Date.now() - started} ms`);
      assert.ok(!result.isError && result.structuredContent, `${name}: ${texts.join(" ").slice(0, 600)}`);
      return result.structuredContent;
    };

    // 1. Import with standardisation and deduplication (the file by path: no molecule through the context).
    const imported = await call("canvas_import", { path: "triage.sdf", table: "library", standardize: true, dedupe: true });
    const canvasId = imported.canvas_id as string;
    // 2. The descriptors, every alert set and every drug-likeness set (again while the answer says complete: false).
    let annotated = await call("canvas_annotate", { canvas_id: canvasId, table: "library", columns: [...KINDS] });
    while (annotated.complete === false) annotated = await call("canvas_annotate", { canvas_id: canvasId, table: "library", columns: [...KINDS] });
    // 3-5. Butina clusters, a MaxMin pick of 50, scaffolds.
    const clustered = await call("cluster_molecules", { canvas_id: canvasId, table: "library", threshold: THRESHOLD });
    const picked = await call("pick_diverse", { canvas_id: canvasId, table: "library", n: PICKS });
    await call("murcko_scaffold", { canvas_id: canvasId, table: "library" });
    // 6. A grid of the largest cluster (Butina's first), captioned by the records' IDs.
    const grid = await call("depict", { canvas_id: canvasId, table: "library", where: "cluster_id = 0", legend_column: "ID" });
    t.diagnostic(transcript.join("\n"));
    t.diagnostic(`${calls} calls, ${textBytes} bytes of content text`);
    assert.ok(calls <= MAX_CALLS, `${calls} calls`);
    assert.ok(textBytes <= MAX_TEXT_BYTES, `${textBytes} bytes of text`);
    assert.equal(clustered.cluster_count !== undefined, true);
    assert.equal(picked.picked, PICKS);
    assert.ok((grid.count as number) >= 1);

    // The table, read back (outside the triage's count) in pages of 1,000.
    const read = async (sql: string): Promise<Row[]> => {
      const out: Row[] = [];
      for (let offset = 0; ; offset += 1000) {
        const page = (await client.callTool({ name: "chembl_dataframe_query", arguments: { canvas_id: canvasId, sql: `${sql} LIMIT 1000 OFFSET ${offset}`, max_rows: 1000 } }))
          .structuredContent as { rows: Row[] };
        out.push(...page.rows);
        if (page.rows.length < 1000) return out;
      }
    };
    const rows = await read("SELECT * FROM library ORDER BY row_id");
    t.diagnostic(`${rows.length} rows kept of ${RECORDS} records; counts ${JSON.stringify(imported.counts)}`);

    // Parents: each kept row's smiles is native RDKit's standardised parent of its record.
    const index = (r: Row) => Number(String(r.title ?? r.input).replace(/^mol-/, ""));
    const valid = rows.filter((r) => r.smiles !== null);
    const native = await python("oracle-triage.py", { native: join(dir, "triage.sdf"), kept: valid.map(index), threshold: THRESHOLD, picks: PICKS });
    const parents = native.parents as Array<string | null>;
    const wrongParents = valid.filter((r) => r.smiles !== parents[index(r)]).map((r) => `${String(r.title)}: ${String(r.smiles)} native ${String(parents[index(r)])}`);
    assert.deepEqual(wrongParents.slice(0, 10), [], `${wrongParents.length} parents differ`);
    // Deduplication: no two kept rows share a parent; every record native RDKit reads is a kept row or counted as a duplicate.
    assert.equal(new Set(valid.map((r) => r.parent_inchikey)).size, valid.length);
    const readable = parents.filter((p) => p !== null).length;
    const duplicates = valid.reduce((n, r) => n + Number(r.duplicates ?? 0), 0);
    assert.equal(valid.length + duplicates, readable, "kept + duplicates = records native RDKit reads");
    for (const i of made.salts as number[]) assert.ok(!valid.some((r) => index(r) === i), `record ${i}, an HCl salt of record ${i - 1}, is a duplicate`);
    // Invalid records are kept with their error.
    assert.deepEqual(
      rows.filter((r) => r.smiles === null).map(index),
      made.invalid,
    );

    // Clusters, picks and scaffolds against native RDKit on the same parents, in table order.
    const clusters = native.clusters as number[][];
    const wantCluster = new Map<number, [number, boolean]>();
    clusters.forEach((c, id) => c.forEach((m, k) => wantCluster.set(m, [id, k === 0])));
    valid.forEach((r, k) => assert.deepEqual([r.cluster_id, r.is_centroid], wantCluster.get(k), `${String(r.title)}: cluster`));
    assert.equal(clustered.cluster_count, clusters.length);
    const picks = native.picks as number[];
    assert.deepEqual(
      valid
        .filter((r) => r.pick_rank !== null)
        .sort((a, b) => (a.pick_rank as number) - (b.pick_rank as number))
        .map((r) => valid.indexOf(r)),
      picks,
    );
    const scaffolds = native.scaffolds as string[];
    const wrongScaffolds = valid.filter((r, k) => r.murcko_scaffold !== scaffolds[k]).map((r) => String(r.title));
    assert.deepEqual(wrongScaffolds.slice(0, 10), [], `${wrongScaffolds.length} scaffolds differ`);
    assert.equal(grid.count, clusters[0]!.length);
  } finally {
    await client.close();
  }
});

/**
 * The ChEMBL tools end to end against the local fake: every tool through `chematic-mcp call`, and over
 * stdio in both eras (2026-07-28 and the legacy initialize versions), including a fault mode, whose
 * upstream text must not reach the client in any era. Small timeouts come in through the environment.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { CLI_PATH, MODERN_META, ServerProcess } from "../helpers/server-process.js";
import { HttpServerProcess, modernPost } from "../helpers/http.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { ASPIRIN_SMILES, CANARY } from "../fixtures/chembl/world.js";

const run = promisify(execFile);
/** Answers are quick; a loaded CI machine starting a server process (and its RDKit worker) is not. */
const SLOW_MACHINE_MS = 60_000;

let fake: FakeChembl;
before(async () => (fake = await new FakeChembl("new").start()));
after(() => fake.stop());

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    CHEMBL_API_BASE_URL: fake.baseUrl,
    CHEMBL_REQUEST_TIMEOUT_MS: "3000",
    CHEMBL_DEADLINE_MS: "8000",
    CHEMATIC_WORKERS: "1",
    CHEMATIC_LOG_LEVEL: "warn",
    ...extra,
  };
}

const CALLS: Array<[string, Record<string, unknown>, (v: Record<string, unknown>) => void]> = [
  ["chembl_search_molecules", { query: "Aspirin" }, (v) => assert.equal((v.molecules as Array<Record<string, unknown>>)[0]!.molecule_chembl_id, "CHEMBL25")],
  ["chembl_search_targets", { gene_symbol: "ace" }, (v) => assert.equal((v.targets as Array<Record<string, unknown>>)[0]!.target_chembl_id, "CHEMBL1808")],
  [
    "chembl_get_bioactivities",
    { target_chembl_id: "CHEMBL203", limit: 2 },
    (v) =>
      assert.deepEqual(
        (v.activities as Array<Record<string, unknown>>).map((a) => a.activity_id),
        [40002, 40001],
      ),
  ],
  ["chembl_get_drug_info", { molecule_chembl_id: "CHEMBL122" }, (v) => assert.deepEqual([v.max_phase, v.withdrawn], [4, true])],
  ["chembl_get_assay", { assay_chembl_id: "chembl771355" }, (v) => assert.equal((v.assays as Array<Record<string, unknown>>)[0]!.confidence_score, 1)],
  ["chembl_get_documents", { document_chembl_ids: ["CHEMBL1137930", "CHEMBL1"] }, (v) => assert.deepEqual(v.not_found_ids, ["CHEMBL1"])],
];

describe("chematic-mcp call", () => {
  test("every ChEMBL tool answers through the CLI", async () => {
    const outs = await Promise.all(
      CALLS.map(([tool, args]) => run(process.execPath, [CLI_PATH, "call", tool, JSON.stringify(args)], { env: { ...process.env, ...env() } })),
    );
    for (const [i, { stdout }] of outs.entries()) {
      const value = JSON.parse(stdout) as Record<string, unknown>;
      CALLS[i]![2](value);
      assert.equal((value.source as Record<string, unknown>).release, "ChEMBL_36");
    }
  });

  test("an upstream failure exits 1 with a sanitised error", async () => {
    const failing = await new FakeChembl("new").start();
    failing.fault = { mode: "500-html" };
    try {
      const err = await run(process.execPath, [CLI_PATH, "call", "chembl_get_drug_info", '{"molecule_chembl_id":"CHEMBL25"}'], {
        env: { ...process.env, ...env({ CHEMBL_API_BASE_URL: failing.baseUrl, CHEMBL_REQUEST_TIMEOUT_MS: "300", CHEMBL_DEADLINE_MS: "1500" }) },
      }).then(
        () => assert.fail("should exit 1"),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      assert.equal(err.code, 1);
      const payload = JSON.parse(err.stderr) as { error: { code: string; hint: string } };
      assert.equal(payload.error.code, "UPSTREAM_UNAVAILABLE");
      assert.ok(!err.stderr.includes(CANARY) && !err.stdout.includes(CANARY));
    } finally {
      await failing.stop();
    }
  });

  test("CHEMATIC_OFFLINE=1 answers OFFLINE; a bad setting stops start-up with one line naming the variable", async () => {
    const call = (extra: Record<string, string>) =>
      run(process.execPath, [CLI_PATH, "call", "chembl_search_molecules", '{"query":"aspirin"}'], { env: { ...process.env, ...env(extra) } }).then(
        () => assert.fail("should exit non-zero"),
        (e: { code: number; stderr: string }) => e,
      );
    const [offline, badFlag, badUrl] = await Promise.all([
      call({ CHEMATIC_OFFLINE: "1" }),
      call({ CHEMATIC_OFFLINE: "maybe" }),
      call({ CHEMBL_API_BASE_URL: "ftp://example.org/data" }),
    ]);
    assert.equal(offline.code, 1);
    assert.match(offline.stderr, /"OFFLINE"/);
    for (const [bad, name] of [
      [badFlag, "CHEMATIC_OFFLINE"],
      [badUrl, "CHEMBL_API_BASE_URL"],
    ] as const) {
      assert.equal(bad.code, 2, name);
      assert.ok(bad.stderr.trim().split("\n")[0]!.includes(name), bad.stderr);
    }
  });
});

type Block = { type: string; text: string };

describe("stdio, 2026-07-28", () => {
  let s: ServerProcess;
  before(() => (s = new ServerProcess(env())));
  after(async () => {
    await s.close();
  });

  test("every ChEMBL tool: a markdown text block and structuredContent with the same data", async () => {
    let id = 100;
    for (const [tool, args, check] of CALLS) {
      const r = await s.modernCall(id++, tool, args);
      const result = r.result!;
      assert.equal(result.isError, undefined, `${tool}: ${JSON.stringify(result).slice(0, 300)}`);
      const value = result.structuredContent as Record<string, unknown>;
      check(value);
      const [block] = result.content as Block[];
      assert.equal(block!.type, "text");
      assert.match(block!.text, /^\*\*ChEMBL /);
      assert.ok(block!.text.includes("CC BY-SA 3.0"));
    }
  });

  test("a structure search and a sanitised fault", async () => {
    const sim = await s.modernCall(200, "chembl_search_molecules", { smiles: ASPIRIN_SMILES, search_type: "similarity" });
    assert.equal((sim.result!.structuredContent as { returned: number }).returned, 2);
    const bad = await s.modernCall(201, "chembl_search_molecules", { smiles: "C1CC(", search_type: "substructure" });
    assert.equal(bad.result!.isError, true);
    assert.equal((bad.result!.structuredContent as { error: { code: string } }).error.code, "INVALID_STRUCTURE");
    fake.fault = { mode: "502", path: /^target/ };
    try {
      const r = await s.modernCall(202, "chembl_search_targets", { query: "kinase" });
      assert.equal(r.result!.isError, true);
      assert.equal((r.result!.structuredContent as { error: { code: string } }).error.code, "UPSTREAM_UNAVAILABLE");
      assert.ok(!s.lines.some((l) => l.includes(CANARY) || l.includes("Proxy Error")));
    } finally {
      fake.fault = undefined;
    }
  });
});

describe("stdio, legacy eras", () => {
  for (const version of ["2025-06-18", "2024-11-05"] as const) {
    test(`${version}: ChEMBL tools answer, markdown text block${version === "2025-06-18" ? " and structuredContent" : ""}; faults stay sanitised`, async () => {
      const s = new ServerProcess(env());
      try {
        const init = await s.request(1, "initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } }, SLOW_MACHINE_MS);
        assert.equal(init.result!.protocolVersion, version);
        s.send({ jsonrpc: "2.0", method: "notifications/initialized", params: {} });
        const list = await s.request(2, "tools/list", {}, SLOW_MACHINE_MS);
        const names = (list.result!.tools as Array<{ name: string }>).map((t) => t.name);
        for (const [tool] of CALLS) assert.ok(names.includes(tool), tool);
        let id = 10;
        for (const [tool, args, check] of CALLS) {
          const r = await s.request(id++, "tools/call", { name: tool, arguments: args }, SLOW_MACHINE_MS);
          const result = r.result!;
          const [block] = result.content as Block[];
          assert.match(block!.text, /^\*\*ChEMBL /, tool);
          if (version === "2025-06-18") check(result.structuredContent as Record<string, unknown>);
          else assert.equal(result.structuredContent, undefined);
        }
        fake.fault = { mode: "500-html", path: /^molecule/ };
        try {
          const r = await s.request(50, "tools/call", { name: "chembl_get_drug_info", arguments: { molecule_chembl_id: "CHEMBL1237" } }, SLOW_MACHINE_MS);
          if (version === "2024-11-05") {
            assert.equal(r.error!.code, -32000);
          } else {
            assert.equal(r.result!.isError, true);
            assert.match((r.result!.content as Block[])[0]!.text, /UPSTREAM_UNAVAILABLE/);
          }
          assert.ok(!s.lines.some((l) => l.includes(CANARY) || l.includes("Something has gone wrong")));
        } finally {
          fake.fault = undefined;
        }
      } finally {
        await s.close();
      }
    });
  }
});

describe("Streamable HTTP, 2026-07-28", () => {
  let server: HttpServerProcess;
  let url: string;
  before(async () => {
    server = new HttpServerProcess([], env());
    url = await server.url;
  });
  after(async () => {
    await server.stop();
  });

  test("every ChEMBL tool answers with markdown and structuredContent; a fault stays sanitised", async () => {
    let id = 1;
    for (const [tool, args, check] of CALLS) {
      const reply = await modernPost(url, id++, "tools/call", { name: tool, arguments: args });
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      const result = (JSON.parse(reply.text) as { result: { structuredContent: Record<string, unknown>; content: Block[]; isError?: boolean } }).result;
      assert.equal(result.isError, undefined, tool);
      check(result.structuredContent);
      assert.match(result.content[0]!.text, /^\*\*ChEMBL /);
    }
    fake.fault = { mode: "truncated", path: /^assay/ };
    try {
      const reply = await modernPost(url, 99, "tools/call", { name: "chembl_get_assay", arguments: { assay_chembl_ids: ["CHEMBL872939"] } });
      const result = (JSON.parse(reply.text) as { result: { structuredContent: { error: { code: string } }; isError?: boolean } }).result;
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent.error.code, "UPSTREAM_UNAVAILABLE");
      assert.ok(!reply.text.includes(CANARY));
    } finally {
      fake.fault = undefined;
    }
  });
});

describe("chembl:// resources, both eras, stdio and HTTP", () => {
  type ReadResult = { contents: Array<{ uri: string; mimeType: string; text: string }>; ttlMs?: number; cacheScope?: string; resultType?: string };

  function checkMolecule(result: ReadResult): void {
    assert.equal(result.contents.length, 1);
    const [c] = result.contents;
    assert.equal(c!.mimeType, "application/json");
    const row = JSON.parse(c!.text) as { molecule_chembl_id: string; parent_chembl_id: string; source: { release: string } };
    assert.equal(row.molecule_chembl_id, "CHEMBL25");
    assert.equal(row.source.release, "ChEMBL_36");
  }

  test("stdio 2026-07-28: list, templates, read, not found, sanitised fault", async () => {
    const s = new ServerProcess(env());
    try {
      const meta = MODERN_META;
      const templates = await s.request(1, "resources/templates/list", { _meta: meta }, SLOW_MACHINE_MS);
      const uriTemplates = (templates.result!.resourceTemplates as Array<{ uriTemplate: string }>).map((t) => t.uriTemplate).sort();
      assert.deepEqual(uriTemplates, ["chembl://molecule/{chembl_id}", "chembl://target/{chembl_id}", "skill://{+path}"]);
      assert.equal(templates.result!.cacheScope, "public");
      const list = await s.request(2, "resources/list", { _meta: meta }, SLOW_MACHINE_MS);
      assert.ok((list.result!.resources as Array<{ uri: string }>).some((r) => r.uri === "chembl://molecule/CHEMBL25"));
      const read = await s.request(3, "resources/read", { _meta: meta, uri: "chembl://molecule/chembl25" }, SLOW_MACHINE_MS);
      const result = read.result as unknown as ReadResult;
      checkMolecule(result);
      assert.equal(result.resultType, "complete");
      assert.ok((result.ttlMs ?? 0) > 0);
      const target = await s.request(4, "resources/read", { _meta: meta, uri: "chembl://target/CHEMBL203" }, SLOW_MACHINE_MS);
      assert.equal((JSON.parse((target.result as unknown as ReadResult).contents[0]!.text) as { target_chembl_id: string }).target_chembl_id, "CHEMBL203");
      const missing = await s.request(5, "resources/read", { _meta: meta, uri: "chembl://molecule/CHEMBL424242424" }, SLOW_MACHINE_MS);
      assert.equal(missing.error!.code, -32602);
      assert.deepEqual(missing.error!.data, { uri: "chembl://molecule/CHEMBL424242424" });
      const bogus = await s.request(6, "resources/read", { _meta: meta, uri: "file:///etc/passwd" }, SLOW_MACHINE_MS);
      assert.equal(bogus.error!.code, -32602);
      fake.fault = { mode: "500-html", path: /^target/ };
      try {
        const failed = await s.request(7, "resources/read", { _meta: meta, uri: "chembl://target/CHEMBL1808" }, SLOW_MACHINE_MS);
        assert.equal(failed.error!.code, -32603);
        assert.equal((failed.error!.data as { code: string }).code, "UPSTREAM_UNAVAILABLE");
        assert.ok(!s.lines.some((l) => l.includes(CANARY)));
      } finally {
        fake.fault = undefined;
      }
    } finally {
      await s.close();
    }
  });

  test("stdio legacy 2025-11-25: initialize advertises resources (and prompts); read has no cache fields", async () => {
    const s = new ServerProcess(env());
    try {
      const init = await s.request(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {} }, SLOW_MACHINE_MS);
      assert.deepEqual(init.result!.capabilities, { tools: {}, resources: {}, prompts: {} });
      const read = await s.request(2, "resources/read", { uri: "chembl://molecule/CHEMBL25" }, SLOW_MACHINE_MS);
      const result = read.result as unknown as ReadResult;
      checkMolecule(result);
      assert.equal(result.ttlMs, undefined);
      assert.equal(result.resultType, undefined);
    } finally {
      await s.close();
    }
  });

  test("HTTP 2026-07-28: read with the Mcp-Name header carrying the uri", async () => {
    const server = new HttpServerProcess([], env());
    try {
      const url = await server.url;
      const reply = await modernPost(url, 1, "resources/read", { uri: "chembl://molecule/CHEMBL25" }, { "Mcp-Name": "chembl://molecule/CHEMBL25" });
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      checkMolecule((JSON.parse(reply.text) as { result: ReadResult }).result);
      const mismatch = await modernPost(url, 2, "resources/read", { uri: "chembl://molecule/CHEMBL25" }, { "Mcp-Name": "chembl://molecule/CHEMBL1" });
      assert.equal(mismatch.status, 400);
    } finally {
      await server.stop();
    }
  });
});

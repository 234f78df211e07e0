/**
 * The ChEMBL service against the local fake: the URLs it builds, retries inside the deadline, the pacer,
 * the cache, the release lookup, batch lookups, the walk, OFFLINE, and every fault mode.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../../src/domain/errors.js";
import { UpstreamError, parseRetryAfter } from "../../../src/domain/chembl/errors.js";
import { ACTIVITY_FIELDS, MOLECULE_FIELDS } from "../../../src/domain/chembl/normalise.js";
import { Pacer } from "../../../src/domain/chembl/pacer.js";
import { ResponseCache } from "../../../src/domain/chembl/cache.js";
import { ChemblService, ID_LOOKUP_CAP } from "../../../src/domain/chembl/service.js";
import { sharedClientFetcher } from "../../../src/domain/chembl/http.js";
import { createServer, request as httpRequest } from "node:http";
import { FakeChembl } from "../../fixtures/chembl/fake-server.js";
import { testConfig, testService } from "../../fixtures/chembl/harness.js";

let fake: FakeChembl;
before(async () => (fake = await new FakeChembl("new").start()));
after(() => fake.stop());
beforeEach(() => {
  fake.reset();
  fake.flavour = "new";
});

async function rejects(p: Promise<unknown>): Promise<ToolError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ToolError) return e;
    throw e;
  }
  throw new Error("expected a ToolError");
}

describe("URLs", () => {
  test("a name search asks molecule/search with only= from the normaliser's field list, limit and offset", async () => {
    const s = testService(fake);
    await s.searchMolecules({ type: "name", by: "text", query: "aspirin", maxPhaseMin: 4, limit: 10, offset: 20 });
    const [r] = fake.requestsTo("molecule/search");
    assert.ok(r);
    assert.equal(r.query.get("q"), "aspirin");
    assert.equal(r.query.get("max_phase__gte"), "4");
    assert.equal(r.query.get("only"), MOLECULE_FIELDS.join(","));
    assert.equal(r.query.get("limit"), "10");
    assert.equal(r.query.get("offset"), "20");
    assert.match(r.url, /^\/chembl\/api\/data\/molecule\/search\.json\?/);
    assert.equal(r.headers.accept, "application/json");
  });

  test("ID, InChIKey, flexmatch, similarity and substructure searches", () => {
    const s = testService(fake);
    const req = (q: Parameters<ChemblService["moleculeSearchRequest"]>[0]) => {
      const { path, params } = s.moleculeSearchRequest(q);
      return `${path}?${new URLSearchParams(params.filter(([k]) => k !== "only") as [string, string][]).toString()}`;
    };
    const base = { limit: 5, offset: 0 };
    assert.equal(req({ type: "name", by: "chembl_id", query: "CHEMBL25", ...base }), "molecule?molecule_chembl_id=CHEMBL25&limit=5&offset=0");
    assert.equal(
      req({ type: "name", by: "inchi_key", query: "BSYNRYMUTXBXSQ-UHFFFAOYSA-N", maxPhaseMin: 2, ...base }),
      "molecule?molecule_structures__standard_inchi_key=BSYNRYMUTXBXSQ-UHFFFAOYSA-N&max_phase__gte=2&limit=5&offset=0",
    );
    assert.equal(
      req({ type: "exact", smiles: "CCO", maxPhaseMin: 4, ...base }),
      "molecule?molecule_structures__canonical_smiles__flexmatch=CCO&max_phase__gte=4&limit=5&offset=0",
    );
    assert.equal(
      req({ type: "similarity", smiles: "CCO", threshold: 85, maxPhaseMin: 1, ...base }),
      "similarity?smiles=CCO&similarity=85&max_phase__gte=1&limit=5&offset=0",
    );
    assert.equal(
      req({ type: "substructure", smiles: "c1ccccc1", maxPhaseMin: 0.5, ...base }),
      "substructure?smiles=c1ccccc1&max_phase__gte=0.5&limit=5&offset=0",
    );
  });

  test("bioactivity views: ranked excludes null pchembl and orders -pchembl_value then activity_id; null view orders by activity_id", () => {
    const s = testService(fake);
    const ranked = s.activityParams({
      targetChemblId: "CHEMBL203",
      moleculeChemblId: "CHEMBL25",
      view: "potency_ranked",
      standardType: "IC50",
      pchemblMin: 6,
      assayType: "B",
      organism: "Homo sapiens",
      variant: { kind: "wild_type" },
    });
    assert.deepEqual(
      ranked.filter(([k]) => k !== "only"),
      [
        ["molecule_chembl_id", "CHEMBL25"],
        ["target_chembl_id", "CHEMBL203"],
        ["standard_type__iexact", "IC50"],
        ["assay_type", "B"],
        ["target_organism__iexact", "Homo sapiens"],
        ["assay_variant_mutation__isnull", "true"],
        ["pchembl_value__isnull", "false"],
        ["pchembl_value__gte", "6"],
        ["order_by", "-pchembl_value"],
        ["order_by", "activity_id"],
      ],
    );
    assert.deepEqual(
      ranked.find(([k]) => k === "only"),
      ["only", ACTIVITY_FIELDS.join(",")],
    );
    const nul = s.activityParams({
      parentMoleculeChemblId: "CHEMBL1237",
      moleculeChemblId: "CHEMBL419213",
      view: "null_potency",
      variant: { kind: "mutation", mutation: "T790M" },
    });
    assert.deepEqual(
      nul.filter(([k]) => k !== "only"),
      [
        ["parent_molecule_chembl_id", "CHEMBL1237"],
        ["assay_variant_mutation", "T790M"],
        ["pchembl_value__isnull", "true"],
        ["order_by", "activity_id"],
      ],
    );
  });

  test("the activity page walk uses offsets and never follows page_meta.next", async () => {
    const s = testService(fake);
    const r = await s.walkActivities({ targetChemblId: "CHEMBL235", view: "potency_ranked" }, { maxRows: 1000, pageSize: 10 });
    assert.equal(r.activities.length, 57);
    assert.equal(r.truncated_by, null);
    const offsets = fake.requestsTo("activity").map((q) => Number(q.query.get("offset")));
    assert.deepEqual(
      [...offsets].sort((a, b) => a - b),
      [0, 10, 20, 30, 40, 50],
    );
    for (const q of fake.requestsTo("activity")) assert.ok(!q.url.includes("next"));
    // The total order holds across pages: pchembl descending, then activity_id ascending.
    for (let i = 1; i < r.activities.length; i++) {
      const a = r.activities[i - 1]!;
      const b = r.activities[i]!;
      assert.ok(a.pchembl_value! > b.pchembl_value! || (a.pchembl_value === b.pchembl_value && a.activity_id! < b.activity_id!), `order at ${i}`);
    }
  });
});

describe("pacer and walk", () => {
  test("the pacer bounds the requests in flight, service-wide", async () => {
    fake.delayMs = 60;
    const s = testService(fake, { maxConcurrentPages: 2 });
    const r = await s.walkActivities({ targetChemblId: "CHEMBL235", view: "potency_ranked" }, { maxRows: 57, pageSize: 5 });
    assert.equal(r.activities.length, 57);
    assert.ok(fake.maxInFlight <= 2, `max in flight ${fake.maxInFlight}`);
    assert.ok(fake.maxInFlight === 2, "pages ran concurrently");
  });

  test("at the deadline the walk returns its contiguous prefix, marked time_budget", async () => {
    fake.delayMs = 150;
    const s = testService(fake, { maxConcurrentPages: 1, deadlineMs: 700 });
    const started = Date.now();
    const r = await s.walkActivities({ targetChemblId: "CHEMBL235", view: "potency_ranked" }, { maxRows: 57, pageSize: 5 });
    assert.ok(Date.now() - started < 1_500);
    assert.equal(r.truncated_by, "time_budget");
    assert.ok(r.activities.length > 0 && r.activities.length < 57 && r.activities.length % 5 === 0, `prefix of ${r.activities.length}`);
  });

  test("the row cap is reported as row_cap", async () => {
    const s = testService(fake);
    const r = await s.walkActivities({ targetChemblId: "CHEMBL235", view: "potency_ranked" }, { maxRows: 23, pageSize: 10 });
    assert.equal(r.activities.length, 23);
    assert.equal(r.truncated_by, "row_cap");
    assert.equal(r.total_count, 57);
  });

  test("a waiter gives up at its deadline and never takes a slot", async () => {
    const p = new Pacer(1);
    const release = await p.acquire(new AbortController().signal, Date.now() + 1_000);
    await assert.rejects(p.acquire(new AbortController().signal, Date.now() + 30), /timed out/);
    assert.equal(p.waiting, 0);
    release();
    assert.equal(p.inFlight, 0);
  });
});

describe("cache and release", () => {
  test("a repeated lookup is served from the cache without a round trip", async () => {
    const s = testService(fake);
    const a = await s.getMolecule("CHEMBL25");
    const b = await s.getMolecule("CHEMBL25");
    assert.deepEqual(a, b);
    assert.equal(fake.requestsTo("molecule/CHEMBL25").length, 1);
    assert.ok(s.cache.hits >= 1);
  });

  test("the release comes from /status once, and every answer carries it with the CC BY-SA attribution", async () => {
    const s = testService(fake);
    const a = await s.getMolecule("CHEMBL25");
    const b = await s.getTarget("CHEMBL203");
    assert.equal(fake.requestsTo("status").length, 1);
    for (const r of [a, b]) {
      assert.equal(r.source.release, "ChEMBL_36");
      assert.equal(r.source.release_date, "2025-07-28");
      assert.equal(r.source.license, "CC BY-SA 3.0");
      assert.match(r.source.attribution, /ChEMBL_36.*CC BY-SA 3\.0.*Nucleic Acids Res/);
    }
  });

  test("a new release seen on /status empties the response cache", async () => {
    const s = testService(fake, {}, { statusTtlMs: 1 });
    await s.getMolecule("CHEMBL25");
    await new Promise((r) => setTimeout(r, 5)); // the point: the 1 ms status TTL has passed
    fake.flavour = "old";
    const again = await s.getMolecule("CHEMBL25");
    assert.equal(again.source.release, "ChEMBL_25");
    await s.getMolecule("CHEMBL25");
    assert.ok(fake.requestsTo("molecule/CHEMBL25").length >= 2, "asked again after the release changed");
  });

  test("a failing status endpoint names no release but does not fail the answer", async () => {
    fake.fault = { mode: "500-html", path: /^status$/ };
    const s = testService(fake);
    const r = await s.getMolecule("CHEMBL25");
    assert.equal(r.molecule.molecule_chembl_id, "CHEMBL25");
    assert.equal(r.source.release, null);
    assert.match(r.source.attribution, /CC BY-SA 3\.0/);
  });

  test("the cache is bounded by entries and by bytes", () => {
    const c = new ResponseCache({ maxEntries: 2, maxBytes: 1000, ttlMs: 60_000 });
    c.set("a", 1, 10);
    c.set("b", 2, 10);
    c.get("a");
    c.set("c", 3, 10);
    assert.equal(c.get("b"), undefined, "least recently used evicted");
    assert.equal(c.get("a"), 1);
    c.set("big", 4, 600);
    assert.equal(c.get("big"), undefined, "an answer over a quarter of the budget is not cached");
    c.set("d", 5, 10, Date.now() - 120_000);
    assert.equal(c.get("d"), undefined, "expired");
  });
});

describe("retries, deadline and errors", () => {
  test("5xx is retried with backoff inside the deadline and then succeeds", async () => {
    fake.fault = { mode: "502", times: 2, path: /^molecule\// };
    const s = testService(fake);
    const r = await s.getMolecule("CHEMBL25");
    assert.equal(r.molecule.pref_name, "ASPIRIN");
    assert.equal(fake.requestsTo("molecule/CHEMBL25").length, 3);
  });

  test("a truncated JSON body is retried", async () => {
    fake.fault = { mode: "truncated", times: 1, path: /^molecule\// };
    const s = testService(fake);
    assert.equal((await s.getMolecule("CHEMBL25")).molecule.pref_name, "ASPIRIN");
  });

  test("429 honours Retry-After within the deadline", async () => {
    fake.fault = { mode: "429", times: 1, retryAfter: "1", path: /^molecule\// };
    const s = testService(fake);
    const started = Date.now();
    const r = await s.getMolecule("CHEMBL25");
    assert.equal(r.molecule.pref_name, "ASPIRIN");
    assert.ok(Date.now() - started >= 950, "waited for Retry-After");
  });

  test("429 whose Retry-After outlasts the deadline answers RATE_LIMITED at once, with retry_after_s", async () => {
    fake.fault = { mode: "429", retryAfter: "120", path: /^molecule\// };
    const s = testService(fake, { deadlineMs: 3_000 });
    const started = Date.now();
    const e = await rejects(s.getMolecule("CHEMBL25"));
    assert.equal(e.code, "RATE_LIMITED");
    assert.equal(e.details.retry_after_s, 120);
    assert.equal(e.details.retry_stopped_by_deadline, true);
    assert.ok(Date.now() - started < 1_000);
    assert.equal(parseRetryAfter(new Date(Date.now() + 5_000).toUTCString())! > 3_000, true);
  });

  test("a hanging upstream ends at the call's deadline, not the client's", async () => {
    fake.fault = { mode: "hang" };
    const s = testService(fake, { requestTimeoutMs: 200, deadlineMs: 900 });
    const started = Date.now();
    const e = await rejects(s.getMolecule("CHEMBL25"));
    const took = Date.now() - started;
    assert.ok(e.code === "DEADLINE_EXCEEDED" || e.code === "UPSTREAM_UNAVAILABLE", e.code);
    assert.ok(took >= 200 && took < 1_400, `took ${took} ms`);
    assert.ok(fake.requestsTo("molecule/CHEMBL25").length >= 2, "retried after a timeout");
  });

  test("the caller's deadline caps the configured one (chained calls share it)", async () => {
    fake.fault = { mode: "hang" };
    const s = testService(fake, { requestTimeoutMs: 5_000, deadlineMs: 50_000 });
    const started = Date.now();
    const e = await rejects(s.drugInfo("CHEMBL25", { deadline: Date.now() + 600 }));
    assert.equal(e.code, "DEADLINE_EXCEEDED");
    assert.ok(Date.now() - started < 1_000);
  });

  test("an empty 404 on a detail lookup is NOT_FOUND; on a batch lookup it is UPSTREAM_UNAVAILABLE", async () => {
    const s = testService(fake);
    const miss = await rejects(s.getMolecule("CHEMBL12345678"));
    assert.equal(miss.code, "NOT_FOUND");
    assert.match(miss.message, /CHEMBL12345678/);
    fake.fault = { mode: "404-empty", path: /^assay$/ };
    const broken = await rejects(s.getAssays(["CHEMBL663853"]));
    assert.equal(broken.code, "UPSTREAM_UNAVAILABLE");
    assert.equal(fake.requestsTo("assay").length, 1, "a 404 is not retried");
  });

  test("a 400 on a structure search is INVALID_STRUCTURE, described in our words", async () => {
    const s = testService(fake);
    const e = await rejects(s.searchMolecules({ type: "similarity", smiles: "C1CCCCC1[Xx]", threshold: 70, limit: 5, offset: 0 }));
    assert.equal(e.code, "INVALID_STRUCTURE");
    assert.equal(e.details.rejection, "unparsable");
    assert.ok(!e.message.includes("Xx") && !e.message.includes("UPSTREAM-CANARY"));
  });

  test("the raw upstream failure stays on cause, which no serialiser sees", async () => {
    fake.fault = { mode: "500-html", path: /^molecule\// };
    const s = testService(fake, { deadlineMs: 2_000 });
    const e = await rejects(s.getMolecule("CHEMBL25"));
    assert.ok(e instanceof UpstreamError);
    assert.equal(e.details.status, 500);
    assert.equal(e.details.attempts, 4);
    assert.ok(!JSON.stringify(e).includes("CANARY") && !JSON.stringify(e.toPayload()).includes("CANARY"));
    assert.match(JSON.stringify((e as { cause?: unknown }).cause), /CANARY/);
  });

  test("OFFLINE refuses before any request", async () => {
    const s = new ChemblService({ ...testConfig(fake), offline: true });
    const e = await rejects(s.getMolecule("CHEMBL25"));
    assert.equal(e.code, "OFFLINE");
    assert.equal(fake.requests.length, 0);
  });

  test("cancellation stops the call", async () => {
    fake.fault = { mode: "hang" };
    const s = testService(fake);
    const controller = new AbortController();
    const started = Date.now();
    const asked = fake.requests.length;
    const call = assert.rejects(s.getMolecule("CHEMBL25", { signal: controller.signal }));
    // Cancelled once the request hangs at the upstream (its arrival is the event), not after a fixed pause.
    await fake.arrived.until(() => fake.requests.length > asked, "the request to reach the hanging upstream", 5_000);
    controller.abort();
    await call;
    assert.ok(Date.now() - started < 600);
  });
});

describe("batch lookups", () => {
  test("the first 100 distinct IDs go in one __in request; the rest are deferred; misses are not_found", async () => {
    const s = testService(fake);
    const ids = ["CHEMBL872939", "CHEMBL663853", "CHEMBL872939", ...Array.from({ length: 150 }, (_, i) => `CHEMBL${900000 + i}`)];
    const r = await s.getAssays(ids);
    const reqs = fake.requestsTo("assay");
    assert.equal(reqs.length, 1);
    const asked = reqs[0]!.query.get("assay_chembl_id__in")!.split(",");
    assert.equal(asked.length, ID_LOOKUP_CAP);
    assert.equal(new Set(asked).size, ID_LOOKUP_CAP);
    assert.deepEqual(
      r.items.map((a) => a.assay_chembl_id),
      ["CHEMBL872939", "CHEMBL663853"],
    );
    assert.equal(r.not_found_ids.length, 98);
    assert.equal(r.deferred_ids.length, 52);
    assert.equal(r.deferred_ids[0], `CHEMBL${900000 + 98}`);
  });
});

describe("release flavours", () => {
  for (const flavour of ["old", "new"] as const) {
    test(`release ${flavour}: max_phase, flags and numbers normalise the same`, async () => {
      fake.flavour = flavour;
      const s = testService(fake);
      const m = await s.getMolecule("CHEMBL122");
      assert.equal(m.molecule.max_phase, 4);
      assert.equal(m.molecule.withdrawn_flag, true);
      assert.equal(m.molecule.black_box_warning, false);
      assert.equal(m.molecule.mw_freebase, 314.36);
      assert.equal(m.source.release, flavour === "old" ? "ChEMBL_25" : "ChEMBL_36");
      const sparse = await s.getMolecule("CHEMBL3989520");
      assert.equal(sparse.molecule.max_phase, null);
      assert.equal(sparse.molecule.mw_freebase, null);
      assert.equal(sparse.molecule.pref_name, null);
      assert.equal(sparse.molecule.parent_chembl_id, null);
      const page = await s.activityPage({ targetChemblId: "CHEMBL203", view: "null_potency" }, 0, 10);
      const a = page.activities.find((x) => x.activity_id === 31867)!;
      assert.equal(a.standard_value, null, "absent stays null, never 0");
      assert.equal(a.pchembl_value, null);
      assert.equal(a.potential_duplicate, false);
      assert.equal(a.target_tax_id, 9606);
    });
  }
});

describe("proxies", () => {
  test("requests go through HTTP_PROXY (absolute URI), and NO_PROXY bypasses it", async () => {
    const seen: string[] = [];
    // A forward proxy: it receives "GET http://chembl.test/..." and relays it to the fake.
    const proxy = createServer((req, res) => {
      seen.push(req.url ?? "");
      const target = new URL(req.url ?? "/");
      const upstream = httpRequest(
        { host: "127.0.0.1", port: fake.port, path: `${target.pathname}${target.search}`, method: "GET", headers: { accept: "application/json" } },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      upstream.on("error", () => res.destroy());
      upstream.end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const address = proxy.address();
    const proxyUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    try {
      const base = { apiBaseUrl: "http://chembl.test/chembl/api/data" };
      const via = testService(fake, base, { fetcher: sharedClientFetcher({ HTTP_PROXY: proxyUrl }) });
      const r = await via.getMolecule("CHEMBL25");
      assert.equal(r.molecule.pref_name, "ASPIRIN");
      assert.ok(
        seen.some((u) => u.startsWith("http://chembl.test/chembl/api/data/molecule/CHEMBL25.json")),
        seen.join(" "),
      );
      seen.length = 0;
      const bypass = testService(
        fake,
        { ...base, requestTimeoutMs: 500, deadlineMs: 1_000 },
        { fetcher: sharedClientFetcher({ HTTP_PROXY: proxyUrl, NO_PROXY: "chembl.test" }) },
      );
      const e = await rejects(bypass.getMolecule("CHEMBL25"));
      assert.ok(e.code === "UPSTREAM_UNAVAILABLE" || e.code === "DEADLINE_EXCEEDED", e.code);
      assert.deepEqual(seen, [], "NO_PROXY kept the request away from the proxy");
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});

/**
 * Fuzzing the stdio wire of a real server process: batches of random and mutated lines (valid requests
 * of both eras, notifications, client responses, broken envelopes, random JSON, random bytes with invalid
 * UTF-8 and stray newlines, byte-level mutations of valid requests), then the limits at their edges.
 *
 * Invariants, checked per batch and over the whole run:
 * - every stdout line is a JSON-RPC 2.0 message (a response with exactly one of result/error, or a
 *   notification);
 * - every line that must be answered gets exactly one answer, carrying the request's id (or null when
 *   the line has no readable id), and nothing else is answered (the ids of the answers, as a multiset,
 *   are exactly the expected ones);
 * - no answer is -32603 Internal error (every failure here is the client's and must say so);
 * - the process never exits until stdin closes, and then exits 0.
 *
 * Which lines must be answered is decided here independently of the server, from JSON-RPC 2.0 and the
 * documented limits (src/protocol/limits.ts): a request (valid envelope with an id) and any line that is
 * not a valid message are answered; notifications, client responses and blank lines are not.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { MAX_ARRAY_LENGTH, MAX_JSON_DEPTH, MAX_REQUEST_BYTES, MAX_STRING_BYTES } from "../../src/contract/limits.js";
import { ID_PREFIX_BYTES } from "../../src/protocol/jsonrpc.js";
import { MODERN_META, ServerProcess, type Message } from "../helpers/server-process.js";
import { SMILES_SEEDS, anySmiles, fuzzParams, timeBox, wrongArgs } from "./arbitraries.js";

type Id = string | number;

// ---------------------------------------------------------------------------------------------------
// The oracle

const utf8 = new TextDecoder("utf-8", { fatal: true }); // as JSON-RPC over stdio: UTF-8 text (a BOM is skipped)

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is Id {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

function depth(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce<number>((m, x) => Math.max(m, depth(x)), 0);
  if (isObject(v)) return 1 + Object.values(v).reduce<number>((m, x) => Math.max(m, depth(x)), 0);
  return 0;
}

function overLimits(v: unknown): boolean {
  if (typeof v === "string") return Buffer.byteLength(v, "utf8") > MAX_STRING_BYTES;
  if (Array.isArray(v)) return v.length > MAX_ARRAY_LENGTH || v.some(overLimits);
  if (isObject(v)) return Object.entries(v).some(([k, x]) => overLimits(k) || overLimits(x));
  return false;
}

/**
 * For each line in `bytes` (split on \n, a trailing \r dropped, blank lines skipped): undefined when it
 * must not be answered, else the id its answer must carry (null when the line has no usable id).
 */
export function expectedAnswers(bytes: Buffer): Array<Id | null> {
  const out: Array<Id | null> = [];
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    const last = end < 0;
    if (last) end = bytes.length;
    let line = bytes.subarray(start, end);
    start = end + 1;
    if (last && line.length === 0) break;
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    if (line.every((b) => b === 0x20 || b === 0x09)) continue;
    const answer = expectation(line);
    if (answer !== undefined) out.push(answer);
    if (last) break;
  }
  return out;
}

function expectation(line: Buffer): Id | null | undefined {
  // Over the limit: refused, with the top-level id when it stands within the first ID_PREFIX_BYTES (the server
  // reads no more of such a line), else null. The over-long lines here are whole JSON, so the oracle parses them.
  if (line.length > MAX_REQUEST_BYTES) {
    let whole: unknown;
    try {
      whole = JSON.parse(utf8.decode(line));
    } catch {
      return null;
    }
    return isObject(whole) && isId(whole.id) && line.indexOf('"id":') >= 0 && line.indexOf('"id":') < ID_PREFIX_BYTES ? whole.id : null;
  }
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(line));
  } catch {
    return null;
  }
  // Over-deep: refused before parsing, but answered with the top-level id when it is a valid one.
  if (depth(value) > MAX_JSON_DEPTH) return isObject(value) && isId(value.id) ? value.id : null;
  const id = isObject(value) && isId(value.id) ? value.id : null;
  if (overLimits(value)) return id;
  if (!isObject(value)) return null;
  if (value.jsonrpc !== "2.0") return id;
  if (!("method" in value) && ("result" in value || "error" in value)) return undefined; // a client response
  if (typeof value.method !== "string" || value.method.length === 0) return id;
  const hasId = Object.prototype.hasOwnProperty.call(value, "id");
  if (hasId && !isId(value.id)) return null;
  if (value.params !== undefined && !isObject(value.params)) return id;
  return hasId ? id : undefined; // a notification is never answered
}

// ---------------------------------------------------------------------------------------------------
// Lines

const CHEAP_TOOLS = ["canonical_smiles", "parse_smiles", "calc_properties", "smarts_match", "lipinski_check", "no_such_tool", ""];
const MODERN_METHODS = [
  "tools/list",
  "tools/call",
  "tools/call",
  "tools/call",
  "server/discover",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "ping",
  "no/such_method",
];
const LEGACY_METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "tools/call",
  "resources/list",
  "resources/read",
  "completion/complete",
  "logging/setLevel",
];

const metaArb = fc.oneof(
  { arbitrary: fc.constant(MODERN_META), weight: 6 },
  { arbitrary: fc.constant({ ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" }), weight: 1 },
  { arbitrary: fc.constant({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" }), weight: 1 },
  {
    arbitrary: fc.record({
      "io.modelcontextprotocol/protocolVersion": fc.jsonValue({ maxDepth: 1 }),
      "io.modelcontextprotocol/clientCapabilities": fc.jsonValue({ maxDepth: 1 }),
    }),
    weight: 1,
  },
  { arbitrary: fc.constant({ ...MODERN_META, progressToken: "p" }), weight: 1 },
);

const callParams = fc.record({
  name: fc.oneof(fc.constantFrom(...CHEAP_TOOLS), fc.string({ maxLength: 12 })),
  arguments: fc.oneof(
    { arbitrary: fc.record({ smiles: fc.oneof(fc.constantFrom(...SMILES_SEEDS), anySmiles(20)) }), weight: 4 },
    { arbitrary: fc.record({ smiles: fc.constantFrom(...SMILES_SEEDS), smarts: fc.constantFrom("c1ccccc1", "[#7]", "[$(C=O)") }), weight: 1 },
    { arbitrary: wrongArgs(), weight: 2 },
  ),
});

function paramsFor(method: string, modern: boolean): fc.Arbitrary<unknown> {
  const base =
    method === "tools/call"
      ? callParams
      : method === "resources/read"
        ? fc.record({ uri: fc.oneof(fc.constant("chembl://guide"), fc.string({ maxLength: 20 })) })
        : method === "initialize"
          ? fc.record({ protocolVersion: fc.constantFrom("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "1999-01-01"), capabilities: fc.constant({}) })
          : fc.constant({});
  return fc.oneof(
    { arbitrary: modern ? base.chain((p) => metaArb.map((m) => ({ ...p, _meta: m }))) : base, weight: 8 },
    { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
  );
}

/** A line before its id is filled in: the id slot is the ID placeholder, or `keep` for the generated one. */
interface LineSpec {
  message: unknown;
  /** Byte edits after serialisation (a mutated valid line). */
  edits?: Array<[op: number, at: number, byte: number]>;
  raw?: Uint8Array;
}

const ID = "\u0000ID\u0000";

const requestLine: fc.Arbitrary<LineSpec> = fc.tuple(fc.boolean(), fc.nat()).chain(([modern, k]) => {
  const methods = modern ? MODERN_METHODS : LEGACY_METHODS;
  const method = methods[k % methods.length]!;
  return fc.record({ message: paramsFor(method, modern).map((params) => ({ jsonrpc: "2.0", id: ID, method, params })) });
});

const notificationLine: fc.Arbitrary<LineSpec> = fc.record({
  message: fc.record(
    {
      jsonrpc: fc.constant("2.0"),
      method: fc.constantFrom("notifications/initialized", "notifications/progress", "notifications/roots/list_changed", "x/y"),
      params: fc.constant({}),
    },
    { requiredKeys: ["jsonrpc", "method"] },
  ),
});

const clientResponseLine: fc.Arbitrary<LineSpec> = fc.record({
  message: fc.oneof(
    fc.constant({ jsonrpc: "2.0", id: 9_999_999, result: {} }),
    fc.constant({ jsonrpc: "2.0", id: "srv-1", error: { code: -1, message: "no" } }),
  ),
});

const brokenEnvelope: fc.Arbitrary<LineSpec> = fc.record({
  message: fc.record(
    {
      jsonrpc: fc.oneof(fc.constant("2.0"), fc.constant("1.0"), fc.constant(2), fc.constant(null)),
      id: fc.oneof(fc.constant(ID), fc.constant(null), fc.double(), fc.boolean(), fc.constant({ a: 1 }), fc.constant([1])),
      method: fc.oneof(fc.constantFrom("ping", "tools/list", ""), fc.integer(), fc.constant(null)),
      params: fc.oneof(fc.constant({}), fc.constant([1, 2]), fc.string({ maxLength: 5 }), fc.constant(null)),
      result: fc.constant({}),
    },
    { requiredKeys: [] },
  ),
});

const randomJson: fc.Arbitrary<LineSpec> = fc.record({ message: fc.jsonValue({ maxDepth: 4 }) });

const randomBytes: fc.Arbitrary<LineSpec> = fc.record({
  message: fc.constant(null),
  raw: fc.oneof(
    fc.uint8Array({ maxLength: 48 }),
    fc.constantFrom(Buffer.from([0xff, 0xfe]), Buffer.from("\ufeff{}"), Buffer.from([0xc3, 0x28]), Buffer.from("\r"), Buffer.from(" \t ")),
  ),
});

const mutatedLine: fc.Arbitrary<LineSpec> = fc
  .tuple(requestLine, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 4 }))
  .map(([spec, edits]) => ({ ...spec, edits }));

const lineSpec = fc.oneof(
  { arbitrary: requestLine, weight: 8 },
  { arbitrary: mutatedLine, weight: 5 },
  { arbitrary: notificationLine, weight: 1 },
  { arbitrary: clientResponseLine, weight: 1 },
  { arbitrary: brokenEnvelope, weight: 3 },
  { arbitrary: randomJson, weight: 2 },
  { arbitrary: randomBytes, weight: 2 },
);

let nextId = 1;

/** The bytes of one line: a fresh id (numbers and strings alternate), serialised, then mutated. */
function materialize(spec: LineSpec): Buffer {
  if (spec.raw) return Buffer.from(spec.raw);
  const n = nextId++;
  const id: Id = n % 2 === 0 ? n : `fz-${n}`;
  const text = JSON.stringify(spec.message, (_k, v: unknown) => (v === ID ? id : v)) ?? "null";
  let bytes = Buffer.from(text, "utf8");
  for (const [op, at, byte] of spec.edits ?? []) {
    const i = bytes.length === 0 ? 0 : at % bytes.length;
    switch (op % 5) {
      case 0:
        bytes = Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(i)]);
        break;
      case 1:
        bytes = Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)]);
        break;
      case 2:
        bytes = Buffer.from(bytes);
        if (bytes.length > 0) bytes[i] = byte;
        break;
      case 3:
        bytes = bytes.subarray(0, i);
        break;
      default:
        bytes = Buffer.concat([bytes.subarray(0, i), bytes.subarray(i, i + 1 + (byte % 16)), bytes.subarray(i)]);
    }
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------------

function isResponse(m: Message): boolean {
  return m.method === undefined;
}

function assertJsonRpcLine(line: string): void {
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    assert.fail(`stdout line is not JSON: ${line.slice(0, 300)}`);
  }
  assert.ok(isObject(m), `stdout line is not an object: ${line.slice(0, 300)}`);
  assert.equal(m.jsonrpc, "2.0", `not JSON-RPC 2.0: ${line.slice(0, 300)}`);
  if (typeof m.method === "string") {
    assert.ok(!("id" in m), `the server sent a request: ${line.slice(0, 300)}`);
    return;
  }
  assert.ok("id" in m && (m.id === null || isId(m.id)), `a response needs an id: ${line.slice(0, 300)}`);
  assert.ok("result" in m !== "error" in m, `exactly one of result and error: ${line.slice(0, 300)}`);
  if ("error" in m) {
    const e = m.error as Record<string, unknown>;
    assert.ok(isObject(e) && Number.isInteger(e.code) && typeof e.message === "string", `a malformed error object: ${line.slice(0, 300)}`);
    assert.notEqual(e.code, -32603, `Internal error in answer to a fuzzed line: ${line.slice(0, 500)}`);
  } else {
    assert.ok(isObject(m.result), `result must be an object: ${line.slice(0, 300)}`);
  }
}

function tally(ids: ReadonlyArray<Id | null | undefined>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) {
    const key = `${typeof id}:${String(id)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

test("the oracle: which lines must be answered, and with which id", () => {
  const ask = (text: string) => expectedAnswers(Buffer.from(text));
  assert.deepEqual(ask('{"jsonrpc":"2.0","id":7,"method":"ping"}\n'), [7]);
  assert.deepEqual(ask('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'), []);
  assert.deepEqual(ask('{"jsonrpc":"2.0","id":"a","result":{}}\n'), []);
  assert.deepEqual(ask('{"jsonrpc":"1.0","id":"a","method":"ping"}\r\n\n  \n'), ["a"]);
  assert.deepEqual(ask('{"jsonrpc":"2.0","id":null,"method":"ping"}\nnot json\n[1]\n'), [null, null, null]);
  assert.deepEqual(ask('{"jsonrpc":"2.0","id":3,"method":"ping","params":[]}'), [3]);
  // Over-deep, but its top-level id is readable: answered with it.
  assert.deepEqual(ask(`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":${"[".repeat(70)}${"]".repeat(70)}}}`), [4]);
  assert.deepEqual(expectedAnswers(Buffer.from([0xff, 0x0a, 0x7b, 0x7d])), [null, null]);
});

describe("random and mutated JSON-RPC lines over stdio to a real child process", () => {
  let server: ServerProcess;
  let expectedTotal = 0;
  let checkedLines = 0;

  before(() => {
    server = new ServerProcess({ CHEMATIC_WORKERS: "1", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" });
  });

  after(async () => {
    if (server.child.exitCode === null) server.kill();
  });

  /** Sends one chunk of bytes; waits for every answer it must get; checks lines and ids. */
  async function exchange(bytes: Buffer): Promise<void> {
    const expected = expectedAnswers(bytes);
    const before = server.messages.filter(isResponse).length;
    const linesBefore = server.lines.length;
    expectedTotal += expected.length;
    server.sendRaw(bytes);
    await server.until(
      () => server.messages.filter(isResponse).length - before >= expected.length,
      `${expected.length} answers to ${bytes.toString("latin1").slice(0, 500)}`,
      30_000,
    );
    const answers = server.messages.filter(isResponse).slice(before);
    for (const line of server.lines.slice(linesBefore)) assertJsonRpcLine(line);
    checkedLines = server.lines.length;
    assert.deepEqual(
      tally(answers.map((a) => a.id)),
      tally(expected),
      `answer ids differ from the lines that must be answered\nsent: ${bytes.toString("latin1").slice(0, 800)}\ngot: ${JSON.stringify(answers).slice(0, 800)}`,
    );
  }

  test("batches of random, mutated and broken lines: one answer per request, valid lines only, no crash", { timeout: 120_000 }, async (t) => {
    const box = timeBox(18_000);
    await fc.assert(
      fc.asyncProperty(fc.array(lineSpec, { minLength: 1, maxLength: 12 }), fc.constantFrom("\n", "\r\n"), (specs, eol) =>
        box(async () => {
          const lines = specs.map(materialize);
          await exchange(Buffer.concat(lines.flatMap((l) => [l, Buffer.from(eol)])));
        }),
      ),
      fuzzParams(400),
    );
    t.diagnostic(`${server.lines.length} stdout lines, ${expectedTotal} answers expected and received`);
  });

  test("the limits at their edges", { timeout: 120_000 }, async () => {
    const request = (extra: string) => `{"jsonrpc":"2.0","id":"edge-${nextId++}","method":"ping"${extra}}`;
    const nest = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    const cases = [
      request(`,"params":{"a":${nest(MAX_JSON_DEPTH - 2)}}`), // depth 64: fine
      request(`,"params":{"a":${nest(MAX_JSON_DEPTH)}}`), // depth 66: refused
      `${"[".repeat(100_000)}`, // hostile nesting, unparsed
      request(`,"params":{"s":"${"x".repeat(MAX_STRING_BYTES)}"}`),
      request(`,"params":{"s":"${"x".repeat(MAX_STRING_BYTES + 1)}"}`),
      request(`,"params":{"s":"${"é".repeat(MAX_STRING_BYTES / 2 + 1)}"}`), // 2 bytes each: over in bytes, not in characters
      request(`,"params":{"a":[${Array(MAX_ARRAY_LENGTH).fill(0).join(",")}]}`),
      request(
        `,"params":{"a":[${Array(MAX_ARRAY_LENGTH + 1)
          .fill(0)
          .join(",")}]}`,
      ),
      `{"jsonrpc":"2.0","id":"big-${nextId++}","method":"ping","params":{"pad":"${"y".repeat(MAX_REQUEST_BYTES)}"}}`, // over 1 MiB
      `\ufeff${request("")}`,
      request("").replace('"ping"', '"tools/call","params":{"name":"canonical_smiles","arguments":{"smiles":"C1CC"}}'),
      `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
      `{"jsonrpc":"2.0","id":"dup-x","method":"ping"}\n{"jsonrpc":"2.0","id":"dup-x","method":"ping"}`,
      "",
      "   ",
      `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
    ];
    for (const c of cases) await exchange(Buffer.from(`${c}\n`));
    // A line of exactly MAX_REQUEST_BYTES with CRLF, and one a byte over, straight after each other.
    const exact = request("").slice(0, -1);
    const fill = (size: number) => Buffer.from(`${exact},"p":"${"z".repeat(size - Buffer.byteLength(exact) - 8)}"}`);
    const atLimit = fill(MAX_REQUEST_BYTES);
    assert.equal(atLimit.length, MAX_REQUEST_BYTES);
    await exchange(Buffer.concat([atLimit, Buffer.from("\r\n"), fill(MAX_REQUEST_BYTES + 1), Buffer.from("\n")]));
  });

  test("after everything, the server still answers, then exits 0 at EOF with exactly one answer per answered line", { timeout: 60_000 }, async () => {
    const pong = await server.request(`final-${nextId++}`, "ping");
    expectedTotal++;
    assert.ok(pong.result !== undefined || pong.error !== undefined);
    assert.equal(server.child.exitCode, null, "the process is alive");
    const code = await server.close();
    assert.equal(code, 0, `exit code; stderr: ${server.stderr.slice(-2000)}`);
    for (const line of server.lines.slice(checkedLines)) assertJsonRpcLine(line);
    assert.equal(server.messages.filter(isResponse).length, expectedTotal, "no extra answer arrived later");
    assert.equal(server.lines.length, server.messages.length, "every stdout line parsed");
  });
});

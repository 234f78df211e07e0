/**
 * Operator logging on stderr: with CHEMATIC_LOG_FORMAT=json every stderr line is one JSON event (the start
 * line naming version, transport, address, workers and networked tools; one line per failed call with its
 * request id and code; a worker's stray output; internal-error details), and stdout is byte for byte what
 * the same session gives with text logging. Invalid log settings stop start-up with exit 2.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { ServerProcess, CLI_PATH, MODERN_META } from "../helpers/server-process.js";
import { HttpServerProcess, modernPost } from "../helpers/http.js";
import { createLogger } from "../../src/logger.js";
import { logFailedCall } from "../../src/server/connection.js";
import { PACKAGE } from "../../src/version.js";

type Event = Record<string, unknown> & { time: string; level: string; msg: string };

const BASE_ENV = { CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "info", CHEMATIC_TEST_TOOLS: "1", CHEMBL_API_BASE_URL: "http://127.0.0.1:9/chembl/api/data" };

function parseEvents(stderr: string): Event[] {
  const lines = stderr.split("\n").filter((l) => l.length > 0);
  assert.ok(lines.length > 0, "something was logged");
  return lines.map((line) => {
    let event: Event;
    try {
      event = JSON.parse(line) as Event;
    } catch {
      assert.fail(`a stderr line is not JSON: ${line}`);
    }
    assert.equal(typeof event.time, "string", line);
    assert.ok(!Number.isNaN(Date.parse(event.time)), line);
    assert.ok(["error", "warn", "info", "debug", "notice"].includes(event.level), line);
    assert.equal(typeof event.msg, "string", line);
    return event;
  });
}

/**
 * One scripted stdio session, each request answered before the next is sent (so the order of stdout is
 * fixed): discover, list, a good call, failures of every kind, a worker's stray stdout, a parse error.
 */
async function session(env: Record<string, string>): Promise<{ stdout: string[]; stderr: string }> {
  const s = new ServerProcess({ ...BASE_ENV, ...env });
  try {
    const call = (id: number, name: string, args: Record<string, unknown>) => s.modernCall(id, name, args);
    await s.request(1, "server/discover", { _meta: MODERN_META });
    await s.request(2, "tools/list", { _meta: MODERN_META });
    assert.ok((await call(3, "calc_properties", { smiles: "CCO" })).result);
    assert.equal((await call(4, "parse_smiles", { smiles: "C1CC" })).result!.isError, true);
    assert.equal((await call(5, "calc_properties", { smiles: 42 })).result!.isError, true);
    assert.equal((await s.request(6, "no/such/method", { _meta: MODERN_META })).error!.code, -32601);
    assert.equal((await call(7, "no_such_tool", {})).error!.code, -32602);
    assert.equal((await call(8, "test_crash", { mode: "throw" })).error!.code, -32603);
    assert.equal((await call(9, "test_crash", { mode: "stdout" })).result!.isError, undefined);
    s.sendRaw("this is not json\n");
    await s.waitFor((m) => m.id === null && m.error?.code === -32700);
    assert.equal((await call(10, "test_sleep", { ms: 3000 })).result!.isError, true);
  } finally {
    await s.close();
  }
  return { stdout: s.lines, stderr: s.stderr };
}

test("CHEMATIC_LOG_FORMAT=json: every stderr line is a JSON event, and stdout is unchanged", async () => {
  const [json, text] = await Promise.all([session({ CHEMATIC_LOG_FORMAT: "json" }), session({})]);
  assert.deepEqual(json.stdout, text.stdout, "stdout is the same with and without JSON logging");
  for (const line of json.stdout) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, "2.0", `stdout carries protocol only: ${line}`);
  assert.ok(
    text.stderr.split("\n").some((l) => l.startsWith("chematic-mcp info: ")),
    "the text run logs text",
  );

  const events = parseEvents(json.stderr);
  const start = events.find((e) => e.msg.includes("serving MCP over stdio"));
  assert.ok(start, json.stderr);
  assert.equal(start.version, PACKAGE.version);
  assert.equal(start.transport, "stdio");
  assert.equal(start.workers, 1);
  assert.deepEqual(start.networked, ["ChEMBL", "PubChem"]);
  assert.equal(start.chembl_api, BASE_ENV.CHEMBL_API_BASE_URL);

  const failed = events.filter((e) => e.msg === "call failed");
  const byId = new Map(failed.map((e) => [e.id, e]));
  assert.equal(failed.length, 7, `one line per failed call: ${JSON.stringify(failed)}`);
  assert.deepEqual(
    [4, 5, 6, 7, 8, null, 10].map((id) => [id, byId.get(id)?.code]),
    [
      [4, "INVALID_SMILES"],
      [5, "INVALID_ARGUMENTS"],
      [6, -32601],
      [7, -32602],
      [8, -32603],
      [null, -32700],
      [10, "TIMEOUT"],
    ],
  );
  assert.equal(byId.get(4)!.tool, "parse_smiles");
  assert.equal(byId.get(4)!.method, "tools/call");
  assert.equal(byId.get(4)!.level, "info", "a caller's mistake is info");
  assert.equal(byId.get(10)!.level, "warn", "a TIMEOUT is warn");
  assert.equal(byId.get(8)!.level, "error", "an internal error is error");
  assert.equal(byId.get(6)!.rpc_code, -32601);
  assert.equal(typeof byId.get(4)!.ms, "number");
  // The call from the legacy dialect (none here) and a cancelled call (none here) would not add lines.
  assert.ok(!failed.some((e) => e.id === 3 || e.id === 9), "successful calls are not logged as failures");
  assert.ok(
    events.some((e) => e.msg === "chemistry worker output" && e.text === "stray output from a worker"),
    "a worker's stdout becomes an event",
  );
  assert.ok(
    events.some((e) => e.level === "error" && typeof e.detail === "string" && e.detail.includes("deliberate failure")),
    "the internal error's detail is an event",
  );
});

test("legacy 2024-11-05 tool failures (-32000) are logged with the tool's code", async () => {
  const s = new ServerProcess({ ...BASE_ENV, CHEMATIC_LOG_FORMAT: "json" });
  try {
    await s.request(1, "initialize", { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "t", version: "1" } });
    const r = await s.request(2, "tools/call", { name: "parse_smiles", arguments: { smiles: "C1CC" } });
    assert.equal(r.error!.code, -32000);
  } finally {
    await s.close();
  }
  const line = parseEvents(s.stderr).find((e) => e.msg === "call failed");
  assert.deepEqual([line?.id, line?.code, line?.rpc_code, line?.tool], [2, "INVALID_SMILES", -32000, "parse_smiles"]);
});

test("HTTP with JSON logging: the start line names version, transport, address, workers and networked tools; a failed call is one line", async () => {
  const server = new HttpServerProcess([], { ...BASE_ENV, CHEMATIC_LOG_FORMAT: "json", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" });
  try {
    const url = await server.url;
    const bad = await modernPost(url, "req-7", "tools/call", { name: "parse_smiles", arguments: { smiles: "C1CC" } });
    assert.equal(bad.status, 200);
    const offline = await modernPost(url, 8, "tools/call", { name: "name_to_smiles", arguments: { name: "aspirin" } });
    assert.match(offline.text, /OFFLINE/);
    // Logged at info, below the level set: only the start line (always written) may appear.
    const quiet = parseEvents(server.stderr);
    assert.deepEqual(
      quiet.map((e) => e.level),
      ["notice"],
      server.stderr,
    );
    const start = quiet[0]!;
    assert.equal(start.version, PACKAGE.version);
    assert.equal(start.transport, "streamable-http");
    assert.equal(start.address, url);
    assert.equal(start.workers, 1);
    assert.deepEqual([start.networked, start.offline], [[], true]);
  } finally {
    await server.stop();
  }

  const verbose = new HttpServerProcess([], { ...BASE_ENV, CHEMATIC_LOG_FORMAT: "json" });
  try {
    const url = await verbose.url;
    const reply = await modernPost(url, "req-7", "tools/call", { name: "parse_smiles", arguments: { smiles: "C1CC" } });
    assert.equal((JSON.parse(reply.text) as { result: { isError: boolean } }).result.isError, true);
    // A request refused before dispatch (the mirrored header does not match the body) is logged too.
    const mismatch = await modernPost(url, 9, "tools/call", { name: "parse_smiles", arguments: { smiles: "C" } }, { "Mcp-Name": "calc_properties" });
    assert.equal(mismatch.status, 400);
  } finally {
    await verbose.stop();
  }
  const events = parseEvents(verbose.stderr);
  const failed = events.filter((e) => e.msg === "call failed");
  assert.deepEqual(
    failed.map((e) => [e.id, e.code]),
    [
      ["req-7", "INVALID_SMILES"],
      [9, -32020],
    ],
  );
  assert.ok(events.some((e) => e.msg === "shutting down: finishing the requests in flight"));
});

test("an invalid CHEMATIC_LOG_LEVEL or CHEMATIC_LOG_FORMAT stops start-up with exit 2 naming the variable", () => {
  for (const [name, value] of [
    ["CHEMATIC_LOG_LEVEL", "verbose"],
    ["CHEMATIC_LOG_FORMAT", "xml"],
  ] as const) {
    for (const args of [[], ["--transport", "streamable-http", "--port", "0"]]) {
      const r = spawnSync(process.execPath, [CLI_PATH, ...args], {
        env: { ...process.env, ...BASE_ENV, [name]: value },
        input: "",
        encoding: "utf8",
        timeout: 20_000,
      });
      assert.equal(r.status, 2, `${name}=${value} ${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stdout, "");
      assert.match(r.stderr.split("\n")[0]!, new RegExp(`${name} must be one of`));
    }
  }
});

test("logFailedCall: the level follows the code, and client-chosen strings are clipped", () => {
  const lines: string[] = [];
  const logger = createLogger({ CHEMATIC_LOG_FORMAT: "json", CHEMATIC_LOG_LEVEL: "debug" }, (l) => lines.push(l));
  logFailedCall(logger, { id: "x".repeat(1000), method: "tools/call", tool: "y".repeat(1000), code: "BUSY", message: "z".repeat(5000) });
  logFailedCall(logger, { id: 1, code: "NOT_FOUND", message: "m" });
  logFailedCall(logger, { id: 2, code: -32603, rpcCode: -32603, message: "Internal error" });
  const events = lines.map((l) => JSON.parse(l) as Event);
  assert.deepEqual(
    events.map((e) => e.level),
    ["warn", "info", "error"],
  );
  assert.ok((events[0]!.id as string).length < 210 && (events[0]!.tool as string).length < 210 && (events[0]!.message as string).length < 510);
  assert.ok(!("tool" in events[1]!), "absent fields are left out");

  const text: string[] = [];
  createLogger({ CHEMATIC_LOG_LEVEL: "warn" }, (l) => text.push(l)).info("hidden");
  createLogger({}, (l) => text.push(l)).notice("always", { port: 1 });
  createLogger({ CHEMATIC_LOG_LEVEL: "error" }, (l) => text.push(l)).notice("even at error");
  assert.deepEqual(text, ["chematic-mcp: always port=1\n", "chematic-mcp: even at error\n"]);
});

test("text logging: a caller's string (tool name, OAuth subject) cannot start a log line or pass for another field", () => {
  const lines: string[] = [];
  const logger = createLogger({ CHEMATIC_LOG_LEVEL: "info" }, (l) => lines.push(l));
  const forged = "nosuch\nchematic-mcp info: authenticated call caller=admin tool=chembl_dataframe_drop status=200";
  logger.info("authenticated call", { caller: "eve\r\nchematic-mcp info: x", method: "tools/call", tool: forged, status: 200 });
  logger.warn(`unknown tool ${forged}\u2028next`);
  logger.info("plain", { caller: "alice-agent", note: "two words", empty: "", quote: 'a"b', eq: "a=b", sep: "x\u2029y" });
  const text = lines.join("");
  assert.equal(text.split("\n").length, lines.length + 1, "one line per entry");
  assert.equal(
    lines[0],
    `chematic-mcp info: authenticated call caller="eve\\r\\nchematic-mcp info: x" method=tools/call tool=${JSON.stringify(forged)} status=200\n`,
  );
  assert.ok(!/\u2028|\u2029/.test(text), "no Unicode line separator is written raw");
  assert.match(lines[1]!, /^chematic-mcp warn: unknown tool nosuch\\nchematic-mcp info: .*\\u2028next\n$/);
  assert.equal(lines[2], 'chematic-mcp info: plain caller=alice-agent note="two words" empty="" quote="a\\"b" eq="a=b" sep="x\\u2029y"\n');
});

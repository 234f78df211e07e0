/**
 * The table app as a legacy (2025-11-25) client sees it over stdio: without the MCP Apps extension nothing
 * changes (no `_meta`, no molecule_table_page, no ui:// resource); with it the set tools carry `_meta.ui` for
 * ui://chematic/table, molecule_table_page is listed for the app alone, and the page reads under its stated size.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { APP_MIME_TYPE, appsServer } from "../helpers/app-host.js";
import { ServerProcess } from "../helpers/server-process.js";

const SET_TOOLS = ["chembl_dataframe_query", "canvas_import", "canvas_annotate", "cluster_molecules", "pick_diverse", "depict"];
let plain: ServerProcess;
let apps: ServerProcess;

before(async () => {
  plain = new ServerProcess({ CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" });
  const init = await plain.request("init", "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "plain", version: "1" } });
  assert.equal(init.error, undefined);
  assert.equal((init.result as { capabilities: { extensions?: unknown } }).capabilities.extensions, undefined);
  plain.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  apps = await appsServer();
});
after(async () => {
  await plain?.close();
  await apps?.close();
});

interface Listed {
  name: string;
  _meta?: { ui?: { resourceUri?: string; visibility?: string[] } };
}

async function tools(server: ServerProcess): Promise<Listed[]> {
  const answer = await server.request(`list-${Math.random()}`, "tools/list", {});
  return (answer.result as { tools: Listed[] }).tools;
}

test("without the extension: no _meta, no molecule_table_page, no ui:// resource", async () => {
  const listed = await tools(plain);
  assert.ok(listed.every((t) => t._meta === undefined));
  assert.ok(!listed.some((t) => t.name === "molecule_table_page"));
  const resources = await plain.request("res", "resources/list", {});
  assert.ok(!(resources.result as { resources: Array<{ uri: string }> }).resources.some((r) => r.uri.startsWith("ui://")));
});

test("with the extension: the set tools open the table, molecule_table_page is the app's alone, the page is small", async () => {
  const listed = await tools(apps);
  for (const name of SET_TOOLS) assert.equal(listed.find((t) => t.name === name)?._meta?.ui?.resourceUri, "ui://chematic/table", name);
  assert.deepEqual(listed.find((t) => t.name === "molecule_table_page")?._meta?.ui, { resourceUri: "ui://chematic/table", visibility: ["app"] });
  const plainNames = (await tools(plain)).map((t) => t.name);
  assert.deepEqual(
    listed.filter((t) => !t._meta?.ui?.visibility?.every((v) => v === "app")).map((t) => t.name),
    plainNames,
    "the same tools otherwise",
  );
  const read = await apps.request("read", "resources/read", { uri: "ui://chematic/table" });
  const content = (read.result as { contents: Array<{ text: string; mimeType: string; _meta: { ui: { csp: unknown } } }> }).contents[0]!;
  assert.equal(content.mimeType, APP_MIME_TYPE);
  assert.deepEqual(content._meta.ui.csp, { connectDomains: [], resourceDomains: [] });
  assert.ok(Buffer.byteLength(content.text) < 450_000, `${Buffer.byteLength(content.text)} bytes`);
});

test("molecule_table_page answers an app's inline list with a one-line text block", async () => {
  const answer = await apps.request("page", "tools/call", {
    name: "molecule_table_page",
    arguments: { smiles_list: ["CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1"], substructure: "c1ccccc1", order_by: "smiles" },
  });
  const result = answer.result as { content: Array<{ text: string }>; structuredContent: { total: number; rows: unknown[][]; svgs: string[] } };
  assert.equal(result.structuredContent.total, 2);
  assert.equal(result.structuredContent.svgs.length, 2);
  assert.ok(result.structuredContent.svgs.every((s) => s.startsWith("<svg") && s.includes("#FF7F7F") && !s.includes("<script")));
  assert.equal(result.content.length, 1);
  assert.ok(!result.content[0]!.text.includes("\n"));
  const bad = await apps.request("bad", "tools/call", { name: "molecule_table_page", arguments: { smiles_list: ["CCO"], substructure: "C((" } });
  assert.match(JSON.stringify(bad), /INVALID_SMARTS/);
});

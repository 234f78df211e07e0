/**
 * The MCP Apps negotiation as each kind of client meets it: a 2026-07-28 client declares the extension in each
 * request's _meta (server/discover and tools/list answer to that request alone, cacheScope private), a legacy client
 * in initialize (held for the connection); CHEMATIC_APPS=off hides the apps from everyone, on shows them to every
 * client; a client shown the apps gets one more text block saying what the app shows, and no other client does.
 * Every app page reads as text/html;profile=mcp-app with an empty CSP, under the size doctor holds it to.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { APP_MIME_TYPE } from "../helpers/app-host.js";
import { MODERN_META, ServerProcess } from "../helpers/server-process.js";

const UI = "io.modelcontextprotocol/ui";
const APPS_CAPS = { extensions: { [UI]: { mimeTypes: [APP_MIME_TYPE] } } };
const servers: ServerProcess[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

function start(env: Record<string, string> = {}): ServerProcess {
  const server = new ServerProcess({ CHEMATIC_WORKERS: "1", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error", ...env });
  servers.push(server);
  return server;
}

const meta = (apps: boolean) => ({ ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": apps ? APPS_CAPS : {} });

interface Discovered {
  capabilities: { extensions?: unknown };
  cacheScope?: string;
}

interface Listed {
  name: string;
  _meta?: { ui?: { resourceUri?: string; visibility?: string[] } };
}

test("2026-07-28: each request's declared capabilities decide, and such answers are private to the client", async () => {
  const server = start();
  const plainDiscover = (await server.request(1, "server/discover", { _meta: meta(false) })).result as unknown as Discovered;
  const appsDiscover = (await server.request(2, "server/discover", { _meta: meta(true) })).result as unknown as Discovered;
  assert.equal(plainDiscover.capabilities.extensions, undefined);
  assert.equal(plainDiscover.cacheScope, "public");
  assert.deepEqual(appsDiscover.capabilities.extensions, { [UI]: {} });
  assert.equal(appsDiscover.cacheScope, "private");

  const plain = (await server.request(3, "tools/list", { _meta: meta(false) })).result as { tools: Listed[]; cacheScope: string };
  const apps = (await server.request(4, "tools/list", { _meta: meta(true) })).result as { tools: Listed[]; cacheScope: string };
  assert.ok(plain.tools.every((t) => t._meta === undefined));
  assert.equal(plain.cacheScope, "public");
  assert.equal(apps.cacheScope, "private");
  assert.equal(apps.tools.find((t) => t.name === "generate_3d")?._meta?.ui?.resourceUri, "ui://chematic/viewer3d");
  const appOnly = apps.tools.filter((t) => t._meta?.ui?.visibility?.includes("app") && !t._meta.ui.visibility.includes("model")).map((t) => t.name);
  assert.ok(appOnly.includes("molecule_table_page"));
  for (const name of appOnly) assert.ok(!plain.tools.some((t) => t.name === name), `${name} is not listed without the extension`);
  // Apart from the app's own tools and _meta, the same list.
  const stripped = apps.tools.filter((t) => !appOnly.includes(t.name)).map(({ _meta, ...rest }) => rest);
  assert.deepEqual(stripped, plain.tools);

  // A declared extension for another MIME type is not ours.
  const other = { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { extensions: { [UI]: { mimeTypes: ["text/x-other"] } } } };
  const otherList = (await server.request(5, "tools/list", { _meta: other })).result as { tools: Listed[] };
  assert.ok(otherList.tools.every((t) => t._meta === undefined));

  const plainResources = (await server.request(6, "resources/list", { _meta: meta(false) })).result as { resources: { uri: string }[] };
  const appResources = (await server.request(7, "resources/list", { _meta: meta(true) })).result as {
    resources: { uri: string; mimeType: string; size?: number }[];
  };
  assert.ok(!plainResources.resources.some((r) => r.uri.startsWith("ui://")));
  const uis = appResources.resources.filter((r) => r.uri.startsWith("ui://"));
  assert.deepEqual(uis.map((r) => r.uri).sort(), ["ui://chematic/plot", "ui://chematic/table", "ui://chematic/viewer3d"]);
  for (const r of uis) {
    assert.equal(r.mimeType, APP_MIME_TYPE);
    // Any client may read a page by its URI; it is a whole, self-contained page of the stated size.
    const read = (await server.request(`read-${r.uri}`, "resources/read", { _meta: meta(false), uri: r.uri })).result as {
      contents: { text: string; mimeType: string; _meta: { ui: { csp: unknown } } }[];
    };
    const page = read.contents[0]!;
    assert.equal(page.mimeType, APP_MIME_TYPE);
    assert.deepEqual(page._meta.ui.csp, { connectDomains: [], resourceDomains: [] });
    assert.equal(Buffer.byteLength(page.text), r.size);
    assert.match(page.text.slice(0, 20).toLowerCase(), /^<!doctype html>/);
    // Nothing fetched from anywhere: no remote script, stylesheet or image source in the page.
    assert.doesNotMatch(page.text, /<(script|link|img)[^>]+(src|href)=["']?https?:/i);
  }

  // The extra line for a client shown the apps, and not for another.
  const args = { smiles: "CCO", num_conformers: 1 };
  const withApps = (await server.modernCall(8, "generate_3d", args, { "io.modelcontextprotocol/clientCapabilities": APPS_CAPS })).result as {
    content: { type: string; text?: string }[];
  };
  const without = (await server.modernCall(9, "generate_3d", args)).result as { content: { type: string; text?: string }[] };
  assert.equal(withApps.content.length, without.content.length + 1);
  assert.match(withApps.content.at(-1)!.text!, /3D viewer app/);
  assert.deepEqual(withApps.content.slice(0, -1), without.content);
});

test("legacy: what initialize declared holds for the connection", async () => {
  const server = start();
  const init = await server.request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: APPS_CAPS, clientInfo: { name: "t", version: "1" } });
  assert.deepEqual((init.result as unknown as Discovered).capabilities.extensions, { [UI]: {} });
  server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const listed = (await server.request(2, "tools/list")).result as { tools: Listed[] };
  assert.equal(listed.tools.find((t) => t.name === "generate_3d")?._meta?.ui?.resourceUri, "ui://chematic/viewer3d");
});

test("CHEMATIC_APPS=off hides the apps from a declaring client; on shows them to every client", async () => {
  const off = start({ CHEMATIC_APPS: "off" });
  const offList = (await off.request(1, "tools/list", { _meta: meta(true) })).result as { tools: Listed[] };
  assert.ok(offList.tools.every((t) => t._meta === undefined));
  assert.ok(!offList.tools.some((t) => t.name === "molecule_table_page"));
  const offDiscover = (await off.request(2, "server/discover", { _meta: meta(true) })).result as unknown as Discovered;
  assert.equal(offDiscover.capabilities.extensions, undefined);

  const on = start({ CHEMATIC_APPS: "on" });
  const onList = (await on.request(1, "tools/list", { _meta: meta(false) })).result as { tools: Listed[] };
  assert.equal(onList.tools.find((t) => t.name === "generate_3d")?._meta?.ui?.resourceUri, "ui://chematic/viewer3d");

  const bad = start({ CHEMATIC_APPS: "sometimes" });
  const code = await bad.close();
  assert.equal(code, 2, "a bad value stops start-up");
});

/**
 * Drives an MCP App as a host does, in real headless Chromium (Debian's chromium, through playwright-core: no
 * browser download): the app's page read from the real server (resources/read ui://...), the tool called on that
 * server, then the page put in a sandboxed frame of a minimal host page (apps/test-host/host.ts: the ext-apps SDK's
 * AppBridge) that sends it the tool's input and result, forwards its tool calls to the server, and records the
 * messages and model-context updates it sends back. The host page's CSP lets nothing load from anywhere (the frame
 * inherits it) and every network request the page makes is refused and recorded.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser, Frame, Page } from "playwright-core";
import { ServerProcess, type Message } from "./server-process.js";

const CHROMIUM = process.env.CHEMATIC_CHROMIUM ?? "/usr/bin/chromium";
export const APP_MIME_TYPE = "text/html;profile=mcp-app";
const UI_EXTENSION = "io.modelcontextprotocol/ui";

/** Why the browser tests cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHEMATIC_CHROMIUM)`;
}

let hostScript: Promise<string> | undefined;
function hostPageScript(): Promise<string> {
  hostScript ??= build({
    entryPoints: [fileURLToPath(new URL("../../../apps/test-host/host.ts", import.meta.url))],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "error",
  }).then((r) => r.outputFiles[0]!.text.replaceAll("</script", "<\\/script"));
  return hostScript;
}

/** The host page: the SDK's host side, and a CSP under which nothing can be fetched (the app's frame inherits it). */
async function hostPage(): Promise<string> {
  const csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; worker-src blob:";
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><script>${await hostPageScript()}</script></head><body style="margin:0"></body></html>`;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    // As root in CI there is no user namespace for Chromium's sandbox; WebGL (3Dmol) runs on SwiftShader, the CPU.
    args: ["--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--ignore-gpu-blocklist"],
  });
}

/** A legacy (2025-11-25) stdio server whose client declared the MCP Apps extension. */
export async function appsServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = new ServerProcess({ CHEMATIC_WORKERS: "2", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error", ...env });
  const init = await server.request("init", "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } },
    clientInfo: { name: "app-host-test", version: "1" },
  });
  if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
  server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return server;
}

let ids = 0;
/** tools/call on the server: the result as the era shapes it, or an error result for a JSON-RPC error. */
export async function callTool(server: ServerProcess, name: string, args: Record<string, unknown>, timeoutMs = 120_000): Promise<Record<string, unknown>> {
  const answer: Message = await server.request(`call-${++ids}`, "tools/call", { name, arguments: args }, timeoutMs);
  if (answer.error) return { isError: true, content: [{ type: "text", text: JSON.stringify(answer.error) }] };
  return answer.result as Record<string, unknown>;
}

async function readApp(server: ServerProcess, uri: string): Promise<{ html: string; mimeType: string; meta: unknown }> {
  const answer = await server.request(`read-${++ids}`, "resources/read", { uri });
  if (answer.error) throw new Error(`resources/read ${uri}: ${JSON.stringify(answer.error)}`);
  const content = (answer.result as { contents: { text: string; mimeType: string; _meta?: unknown }[] }).contents[0]!;
  return { html: content.text, mimeType: content.mimeType, meta: content._meta };
}

/** What apps/test-host/host.ts puts on the host page's window. */
interface HostGlobal {
  chematicHost: {
    open(html: string, args: unknown, result: unknown): Promise<void>;
    messages: Record<string, unknown>[];
    contexts: Record<string, unknown>[];
    toolCalls: { name: string; arguments?: Record<string, unknown> }[];
  };
}

export interface AppSession {
  page: Page;
  /** The app's frame. */
  frame: Frame;
  /** The result the host handed the app. */
  result: Record<string, unknown>;
  /** Requests the page tried to make (all refused): an app must need none. */
  requests: string[];
  /** Messages (ui/message), context updates and tool calls the app sent, as the host recorded them. */
  recorded(): Promise<{
    messages: Record<string, unknown>[];
    contexts: Record<string, unknown>[];
    toolCalls: { name: string; arguments?: Record<string, unknown> }[];
  }>;
  close(): Promise<void>;
}

/**
 * Opens `uri` for a call of `tool` with `args`: the tool is called on the server, its app read, both handed to the
 * host page. Resolves once the app has completed its handshake with the host and been sent the result.
 */
export async function openApp(
  browser: Browser,
  server: ServerProcess,
  options: { uri: string; tool: string; args: Record<string, unknown>; result?: Record<string, unknown>; width?: number; height?: number },
): Promise<AppSession> {
  const { html } = await readApp(server, options.uri);
  const result = options.result ?? (await callTool(server, options.tool, options.args));
  const page = await browser.newPage({ viewport: { width: options.width ?? 1100, height: options.height ?? 760 } });
  const requests: string[] = [];
  await page.route("**/*", async (route) => {
    requests.push(route.request().url());
    await route.abort();
  });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.exposeFunction("chematicCallTool", (params: { name: string; arguments?: Record<string, unknown> }) =>
    callTool(server, params.name, params.arguments ?? {}),
  );
  await page.setContent(await hostPage());
  await page.evaluate(([page, args, res]) => (globalThis as unknown as HostGlobal).chematicHost.open(page, args, res), [html, options.args, result] as const);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (!frame) throw new Error(`no app frame (page errors: ${errors.join("; ")})`);
  return {
    page,
    frame,
    result,
    requests,
    recorded: () =>
      page.evaluate(() => {
        const h = (globalThis as unknown as HostGlobal).chematicHost;
        return { messages: h.messages, contexts: h.contexts, toolCalls: h.toolCalls };
      }),
    close: () => page.close(),
  };
}

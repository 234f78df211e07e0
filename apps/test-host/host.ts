/**
 * A minimal MCP Apps host for the browser tests (test/helpers/app-host.ts bundles it; it is never shipped): the
 * ext-apps SDK's own host side (AppBridge) with the app's page in a sandboxed frame, as Claude or VS Code embed one.
 * Tool calls from the app go to the real server through the test (window.chematicHost.callTool, a Playwright
 * binding); the app's messages and model-context updates are recorded for the test to read.
 */
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

interface Recorded {
  messages: unknown[];
  contexts: unknown[];
  toolCalls: { name: string; arguments?: Record<string, unknown> }[];
  initialized: boolean;
}

declare global {
  interface Window {
    /** The test's binding: one tools/call on the real server, its result as the server answered it. */
    chematicCallTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
    chematicHost: Recorded & { open(html: string, args: Record<string, unknown>, result: Record<string, unknown>): Promise<void> };
  }
}

const recorded: Recorded = { messages: [], contexts: [], toolCalls: [], initialized: false };

async function open(html: string, args: Record<string, unknown>, result: Record<string, unknown>): Promise<void> {
  const frame = document.createElement("iframe");
  // What hosts give an app: scripts, nothing else (no same origin: the app cannot reach the host's page).
  frame.setAttribute("sandbox", "allow-scripts");
  frame.style.width = "100%";
  frame.style.height = "700px";
  frame.style.border = "0";
  document.body.appendChild(frame);
  const bridge = new AppBridge(
    null,
    { name: "chematic-test-host", version: "1" },
    { serverTools: {}, message: { text: {} }, updateModelContext: { text: {}, structuredContent: {} }, openLinks: {} },
    { hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"], containerDimensions: { maxHeight: 700 } } },
  );
  bridge.oncalltool = async (params) => {
    recorded.toolCalls.push({ name: params.name, ...(params.arguments ? { arguments: params.arguments } : {}) });
    return (await window.chematicCallTool(params)) as never;
  };
  bridge.onmessage = async (params) => {
    recorded.messages.push(params);
    return {};
  };
  bridge.onupdatemodelcontext = async (params) => {
    recorded.contexts.push(params);
    return {};
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => {
      recorded.initialized = true;
      resolve();
    };
  });
  // Listening before the page loads: the app's ui/initialize is its first message. (The frame's WindowProxy is the
  // same object before and after the navigation to srcdoc.)
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result as never);
}

window.chematicHost = Object.assign(recorded, { open });

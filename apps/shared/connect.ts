/**
 * What every chematic app does to join its host: one App from the ext-apps SDK (its PostMessageTransport to the
 * host's frame), the host's theme and style variables applied, and the app's size reported to the host.
 */
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from "@modelcontextprotocol/ext-apps";

export function createApp(name: string): App {
  const app = new App({ name: `chematic-${name}`, version: "1" }, {}, { autoResize: true });
  app.onhostcontextchanged = (context) => applyContext(context);
  return app;
}

function applyContext(context: McpUiHostContext | undefined): void {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

/** Connects, then applies the host context the handshake gave. */
export async function connect(app: App): Promise<void> {
  await app.connect();
  applyContext(app.getHostContext());
}

/** A tool result's structured content, or null for an error or a result without it. */
export function structuredOf(result: { isError?: boolean | undefined; structuredContent?: unknown }): Record<string, unknown> | null {
  if (result.isError) return null;
  const content = result.structuredContent;
  return content !== null && typeof content === "object" && !Array.isArray(content) ? (content as Record<string, unknown>) : null;
}

/** An element with text (never innerHTML: every string shown comes from a tool result). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

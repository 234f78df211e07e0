/**
 * Protocol extensions a client declares in its capabilities (`capabilities.extensions`, keyed by extension ID) and
 * this server answers to. Only the MCP Apps extension (SEP-1865) so far: a tool's `_meta.ui.resourceUri` names a
 * `ui://` resource of type `text/html;profile=mcp-app` that the host renders in a sandboxed frame.
 */
import { isJsonObject, type JsonObject } from "./jsonrpc.js";
import { APP_MIME_TYPE } from "../contract/apps.js";

/** The MCP Apps extension's ID, as `@modelcontextprotocol/ext-apps` names it (EXTENSION_ID). */
export const UI_EXTENSION_ID = "io.modelcontextprotocol/ui";

/**
 * Whether `capabilities` declare the MCP Apps extension for the app MIME type this server serves: the extension's
 * entry is an object whose `mimeTypes`, when given, include APP_MIME_TYPE (the SDK's getUiCapability check).
 */
export function declaresApps(capabilities: JsonObject | undefined): boolean {
  const extensions = capabilities?.extensions;
  if (!isJsonObject(extensions)) return false;
  const ui = extensions[UI_EXTENSION_ID];
  if (!isJsonObject(ui)) return false;
  const mimeTypes = ui.mimeTypes;
  if (mimeTypes === undefined) return true;
  return Array.isArray(mimeTypes) && mimeTypes.includes(APP_MIME_TYPE);
}

/** The MCP Apps this server ships (src/resources/apps.ts serves them; a tool names the one that shows its results). */
export const TABLE_APP_URI = "ui://chematic/table";
export const VIEWER3D_APP_URI = "ui://chematic/viewer3d";
/** The MIME type of an MCP App's HTML resource (the ext-apps SDK's RESOURCE_MIME_TYPE). */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** The MCP Apps this server ships (src/resources/apps.ts serves them; a tool names the one that shows its results). */
export const TABLE_APP_URI = "ui://chematic/table";
export const VIEWER3D_APP_URI = "ui://chematic/viewer3d";
export const PLOT_APP_URI = "ui://chematic/plot";
/** The MIME type of an MCP App's HTML resource (the ext-apps SDK's RESOURCE_MIME_TYPE). */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";

/**
 * What the user sees of a result in each app, said to the model in one more text block for the clients shown the apps
 * (their hosts render the app beside the result; the model reads only the text): the model can then refer to it.
 */
export const APP_SHOWS: Readonly<Record<string, string>> = {
  [TABLE_APP_URI]:
    "The user sees this result in the molecule table app: the rows with their structures drawn, page by page, sortable and filterable, with a substructure highlight; rows the user selects there come back as a message.",
  [VIEWER3D_APP_URI]: "The user sees these conformers in the 3D viewer app, one at a time with their energies.",
  [PLOT_APP_URI]: "The user sees this plot in the plot app, interactive (values on hover, zoom); points the user picks there come back as a message.",
};

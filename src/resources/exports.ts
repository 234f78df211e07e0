/**
 * Exported files as resources: chematic://export/{+file} reads a file canvas_export wrote (its answer links it), for
 * hosts that fetch a tool's resource links. SDF and CSV come back as text, Parquet as a base64 blob; a caller of an
 * authenticating server reads only its own folder of the export directory (callerExportDir). Reads are never cached
 * (an export may be overwritten).
 */
import { EXPORT_MIME_TYPES, callerExportDir, readExportFile } from "../domain/canvas/export.js";
import type { CanvasManager } from "../domain/canvas/manager.js";
import { ToolError } from "../domain/errors.js";
import type { ResourceContents, ResourceProvider } from "../contract/resource.js";

/** The largest file a read gives (a resource read may land in a model's context; larger files are opened at their path). */
const EXPORT_READ_MAX_BYTES = 8 * 1024 * 1024;
const PREFIX = "chematic://export/";

/** The file a chematic://export/ URI names (segments percent-decoded), or null. */
function exportFileOf(uri: string): string | null {
  if (!uri.startsWith(PREFIX) || /[?#]/.test(uri)) return null;
  try {
    const segments = uri.slice(PREFIX.length).split("/").map(decodeURIComponent);
    return segments.some((s) => s === "" || s.includes("/") || s.includes("\\")) ? null : segments.join("/");
  } catch {
    return null;
  }
}

export function exportResourceProvider(canvases: () => CanvasManager): ResourceProvider {
  return {
    scheme: "chematic",
    budgetMs: 10_000,
    readTtlMs: 0,
    templates: () => [
      {
        uriTemplate: `${PREFIX}{+file}`,
        name: "export",
        title: "Exported file",
        description: "A file canvas_export wrote (SDF or CSV as text, Parquet as a blob), by the uri its answer gave.",
        mimeType: EXPORT_MIME_TYPES.sdf,
      },
    ],
    list: () => [],
    async read(uri, ctx): Promise<ResourceContents[]> {
      const file = exportFileOf(uri);
      const dir = canvases().exportDir;
      if (file === null || dir === null) throw new ToolError("NOT_FOUND", `No exported file at ${uri}`, { uri });
      const { data, format } = await readExportFile(await callerExportDir(dir, ctx.owner ?? null), file, EXPORT_READ_MAX_BYTES);
      const mimeType = EXPORT_MIME_TYPES[format];
      return [format === "parquet" ? { uri, mimeType, blob: data.toString("base64") } : { uri, mimeType, text: data.toString("utf8") }];
    },
  };
}

/**
 * The MCP Apps (extension io.modelcontextprotocol/ui) as `ui://chematic/<name>` resources: single HTML files built
 * at build time from apps/<name>/ (scripts/build-apps.mjs bundles each app's script, its libraries included, into
 * the page), shipped in the package under build/apps/ and served as they are: nothing is fetched at run time, and
 * each resource declares an empty CSP allow-list (no remote origin at all).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ToolError } from "../domain/errors.js";
import { projectRoot } from "../domain/assets.js";
import { APP_MIME_TYPE } from "../contract/apps.js";
import type { ResourceContents, ResourceEntry, ResourceProvider } from "../contract/resource.js";

const APPS_BUDGET_MS = 5_000;
/** An app changes only with a release. */
const APPS_TTL_MS = 3_600_000;

/** One app: its resource name, what the host may show of it, and the size it is held under (doctor checks it). */
interface AppSpec {
  name: string;
  title: string;
  description: string;
  /** Bytes the built page must stay under: a host loads it into every frame that shows a result. */
  maxBytes: number;
}

const APPS: readonly AppSpec[] = [
  {
    name: "table",
    title: "Molecule table",
    description:
      "A canvas table or a set as a sortable, filterable table of drawn structures, fetched page by page, with a substructure highlight and a selection sent back to the conversation.",
    // Built: 413,621 bytes (the ext-apps SDK and its zod are most of it); held under this with room for fixes.
    maxBytes: 450_000,
  },
  {
    name: "viewer3d",
    title: "3D conformer viewer",
    description: "generate_3d's conformers in 3D (3Dmol.js, bundled), with their force-field energies.",
    maxBytes: 1_100_000,
  },
  {
    name: "plot",
    title: "Plot",
    description:
      "The plot tool's picture made interactive (the same Vega specification, run by Vega's bundled runtime): values on hover, pan and zoom, points picked and sent back to the conversation.",
    maxBytes: 1_100_000,
  },
];

/** `ui://chematic/<name>` (src/contract/apps.ts names the URIs the tools point at). */
export const appUri = (name: string): string => `ui://chematic/${name}`;

/** The folder the built apps are in (build/apps at the package root). */
function appsDir(): string {
  return join(projectRoot(), "build", "apps");
}

interface BuiltApp extends AppSpec {
  path: string;
  bytes: number | null;
}

/** Each app with its built file and size (null when it was not built): what doctor reports. */
export function builtApps(dir = appsDir()): BuiltApp[] {
  return APPS.map((app) => {
    const path = join(dir, `${app.name}.html`);
    return { ...app, path, bytes: existsSync(path) ? statSync(path).size : null };
  });
}

/** The resource `_meta.ui` of every app: no remote origin of any kind (CSP), drawn with the host's border. */
const APP_UI_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };

/**
 * The provider of the built apps that `wanted` keeps (the apps of the tools listed: tool sets leave some out), or
 * null when none is left (none built: a build without `npm run build`).
 */
export function appResourceProvider(wanted: (uri: string) => boolean = () => true, dir = appsDir()): ResourceProvider | null {
  const apps = builtApps(dir).filter((a) => a.bytes !== null && wanted(appUri(a.name)));
  if (apps.length === 0) return null;
  const cache = new Map<string, string>();
  const entries: ResourceEntry[] = apps.map((a) => ({
    uri: appUri(a.name),
    name: `app-${a.name}`,
    title: a.title,
    description: a.description,
    mimeType: APP_MIME_TYPE,
    size: a.bytes!,
    _meta: APP_UI_META,
  }));
  return {
    scheme: "ui",
    budgetMs: APPS_BUDGET_MS,
    readTtlMs: APPS_TTL_MS,
    templates: () => [],
    list: () => entries.map((e) => ({ ...e })),
    async read(uri): Promise<ResourceContents[]> {
      const app = apps.find((a) => appUri(a.name) === uri);
      if (!app) throw new ToolError("NOT_FOUND", `No app at ${uri}`, { uri }, `Read one of: ${apps.map((a) => appUri(a.name)).join(", ")}.`);
      let text = cache.get(app.name);
      if (text === undefined) {
        text = readFileSync(app.path, "utf8");
        cache.set(app.name, text);
      }
      return [{ uri, mimeType: APP_MIME_TYPE, text, _meta: APP_UI_META }];
    },
  };
}

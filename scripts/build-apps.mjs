// Builds the MCP Apps (apps/<name>/index.html + main.ts) into single self-contained pages, build/apps/<name>.html:
// the script bundled with its libraries (the ext-apps SDK's App, 3Dmol.js) by esbuild, minified, inlined into the
// page. A host renders the page in a sandboxed frame whose CSP allows no remote origin, so nothing may be left to
// load at run time. Run by `npm run build` after tsc (which type-checks apps/ through apps/tsconfig.json).
import { build } from "esbuild";
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "build", "apps");
mkdirSync(out, { recursive: true });

const names = readdirSync(join(root, "apps")).filter((n) => {
  const dir = join(root, "apps", n);
  return statSync(dir).isDirectory() && n !== "shared" && n !== "test-host";
});
/**
 * zod (the ext-apps SDK validates the bridge's messages with it) re-exports every locale as a namespace, which no
 * bundler can shake: about 150 kB of error-message translations an app never shows (zod's own default, English,
 * is kept). The namespace is replaced by one holding English only.
 */
const englishOnlyZod = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${"node_modules"}/zod/`)
        ? { path: join(dirname(args.importer), "..", "locales", "index.js"), namespace: "zod-locales" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/** The common look (apps/shared/theme.css), inlined at each page's <!--app-theme--> marker. */
const theme = readFileSync(join(root, "apps", "shared", "theme.css"), "utf8");

for (const name of names) {
  const dir = join(root, "apps", name);
  const result = await build({
    entryPoints: [join(dir, "main.ts")],
    bundle: true,
    minify: true,
    format: "iife",
    target: "es2022",
    platform: "browser",
    write: false,
    // The bundled libraries' licence comments, kept once at the end of the script.
    legalComments: "eof",
    logLevel: "warning",
    plugins: [englishOnlyZod],
  });
  const js = result.outputFiles[0].text.replaceAll("</script", "<\\/script");
  const page = readFileSync(join(dir, "index.html"), "utf8");
  if (!page.includes("<!--app-script-->")) throw new Error(`apps/${name}/index.html has no <!--app-script--> marker`);
  if (!page.includes("<!--app-theme-->")) throw new Error(`apps/${name}/index.html has no <!--app-theme--> marker`);
  const html = page.replace("<!--app-theme-->", () => `<style>${theme}</style>`).replace("<!--app-script-->", () => `<script>${js}</script>`);
  writeFileSync(join(out, `${name}.html`), html);
  process.stderr.write(`build-apps: ${name}.html ${html.length} bytes\n`);
}

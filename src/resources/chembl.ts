/**
 * chembl:// resources: chembl://molecule/{chembl_id} and chembl://target/{chembl_id}, each the row shape
 * its search tool answers (chembl_search_molecules, chembl_search_targets) plus the release and
 * attribution. Reads go through the service (its deadline, retries, cache and sanitising); a miss is
 * NOT_FOUND, which the server answers as "Resource not found".
 */
import { ToolError } from "../domain/errors.js";
import type { ResourceContents, ResourceEntry, ResourceProvider, ResourceTemplate } from "../contract/resource.js";
import { callOptions, type ChemblService } from "../domain/chembl/service.js";

const CHEMBL_RESOURCE_BUDGET_MS = 55_000;
/** Records change only with a ChEMBL release (a few a year); an hour is a safe client cache. */
const CHEMBL_RESOURCE_TTL_MS = 3_600_000;

const MIME = "application/json";

const TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: "chembl://molecule/{chembl_id}",
    name: "chembl-molecule",
    title: "ChEMBL molecule",
    description:
      "One ChEMBL molecule by ID (e.g. chembl://molecule/CHEMBL25): the chembl_search_molecules row (names, parent_chembl_id, max_phase, " +
      "structure, key properties) with the ChEMBL release and the CC BY-SA 3.0 attribution.",
    mimeType: MIME,
  },
  {
    uriTemplate: "chembl://target/{chembl_id}",
    name: "chembl-target",
    title: "ChEMBL target",
    description:
      "One ChEMBL target by ID (e.g. chembl://target/CHEMBL203): the chembl_search_targets row (name, type, organism, components with " +
      "UniProt accessions and gene symbols) with the ChEMBL release and the CC BY-SA 3.0 attribution.",
    mimeType: MIME,
  },
];

const EXAMPLES: ResourceEntry[] = [
  { uri: "chembl://molecule/CHEMBL25", name: "chembl-molecule-CHEMBL25", title: "Aspirin (CHEMBL25)", description: "Example molecule record.", mimeType: MIME },
  { uri: "chembl://target/CHEMBL203", name: "chembl-target-CHEMBL203", title: "EGFR (CHEMBL203)", description: "Example target record.", mimeType: MIME },
];

/** Parses chembl://{molecule|target}/{id}: the id in any case, percent-encoding and surrounding whitespace allowed. */
export function parseChemblUri(uri: string): { kind: "molecule" | "target"; id: string } | null {
  const m = /^chembl:\/\/(molecule|target)\/([^/?#]+)\/?$/i.exec(uri.trim());
  if (!m) return null;
  let id: string;
  try {
    id = decodeURIComponent(m[2]!).trim().toUpperCase();
  } catch {
    return null;
  }
  if (!/^CHEMBL\d{1,12}$/.test(id)) return null;
  return { kind: m[1]!.toLowerCase() as "molecule" | "target", id };
}

export function chemblResourceProvider(service: ChemblService | (() => ChemblService)): ResourceProvider {
  const get = typeof service === "function" ? service : () => service;
  return {
    scheme: "chembl",
    budgetMs: CHEMBL_RESOURCE_BUDGET_MS,
    readTtlMs: CHEMBL_RESOURCE_TTL_MS,
    templates: () => TEMPLATES.map((t) => ({ ...t })),
    list: () => EXAMPLES.map((e) => ({ ...e })),
    async read(uri, ctx): Promise<ResourceContents[]> {
      const parsed = parseChemblUri(uri);
      if (!parsed) throw new ToolError("NOT_FOUND", `No ChEMBL resource at ${uri}`, { uri });
      const options = callOptions(ctx);
      const value =
        parsed.kind === "molecule"
          ? await get()
              .getMolecule(parsed.id, options)
              .then((r) => ({ ...r.molecule, source: r.source }))
          : await get()
              .getTarget(parsed.id, options)
              .then((r) => ({ ...r.target, source: r.source }));
      return [{ uri, mimeType: MIME, text: JSON.stringify(value) }];
    },
  };
}

import { ToolError } from "../domain/errors.js";
import { assertOnline } from "../domain/net/offline.js";
import { NAME_MAX_LENGTH, PUBCHEM_TIMEOUT_MS, lookupName } from "../domain/net/pubchem.js";
import type { ServiceTool } from "../contract/tool.js";

interface Args {
  name: string;
}

export interface NameToSmilesOptions {
  /** Request timeout (default 10 s, the reference's); injectable for tests. */
  timeoutMs?: number;
  /** Environment read at each call (default process.env): PUBCHEM_API_BASE_URL, CHEMATIC_OFFLINE, proxies. */
  env?: () => NodeJS.ProcessEnv;
  /** Extra trusted CA certificates (tests with a TLS fake). */
  ca?: string | Buffer;
}

/** Margin left to the server between our own timeout and the call's budget. */
const BUDGET_MARGIN_MS = 250;

export function createNameToSmilesTool(options: NameToSmilesOptions = {}): ServiceTool<Args> {
  const timeoutMs = options.timeoutMs ?? PUBCHEM_TIMEOUT_MS;
  return {
    kind: "service",
    toolset: "chem",
    name: "name_to_smiles",
    title: "Chemical name to SMILES (PubChem)",
    description:
      "Look up a chemical name, synonym, CAS number or InChI in PubChem (network) and return its SMILES (isomeric), cid and other_cids when the name is ambiguous.",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true, destructiveHint: false },
    inputSchema: {
      type: "object",
      properties: {
        name: {
          type: "string",
          minLength: 1,
          maxLength: NAME_MAX_LENGTH,
          description: "Name, CAS number or standard InChI.",
        },
      },
      required: ["name"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "The name looked up (surrounding whitespace removed)." },
        smiles: { type: "string", description: "PubChem's isomeric SMILES for the best match (not RDKit-canonical)." },
        source: { type: "string", const: "PubChem", description: 'Always "PubChem".' },
        cid: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }], description: "PubChem Compound ID of the match, or null if PubChem gave none." },
        other_cids: {
          type: "array",
          items: { type: "integer", minimum: 1 },
          maxItems: 20,
          description: "Further compounds PubChem lists for this name (present only when there are any; at most 20).",
        },
      },
      required: ["name", "smiles", "source", "cid"],
      additionalProperties: false,
    },
    errors: ["PUBCHEM_LOOKUP_FAILED", "OFFLINE"],
    budgetMs: timeoutMs + 5_000,
    async run({ name }, { signal, deadline }) {
      const env = options.env?.() ?? process.env;
      try {
        assertOnline("name_to_smiles", env);
      } catch (e) {
        // With ChEMBL's offline dump configured, a name can still be looked up: in ChEMBL's names and synonyms.
        if (e instanceof ToolError && env.CHEMBL_SQLITE?.trim()) throw new ToolError(e.code, e.message, e.details, DUMP_LOOKUP_HINT);
        throw e;
      }
      const trimmed = name.trim();
      if (trimmed.length === 0) throw new ToolError("INVALID_ARGUMENTS", "The name is empty (only whitespace)", { path: "/name" });
      // eslint-disable-next-line no-control-regex
      if (/[\u0000-\u001f\u007f]/.test(trimmed))
        throw new ToolError("INVALID_ARGUMENTS", "The name contains control characters (line breaks, tabs...)", { path: "/name" });
      const remaining = Math.max(1, deadline - Date.now() - BUDGET_MARGIN_MS);
      const match = await lookupName(trimmed, {
        env,
        signal,
        timeoutMs: Math.min(timeoutMs, remaining),
        ...(options.ca ? { ca: options.ca } : {}),
      }).catch((e: unknown) => {
        // PubChem unreachable, and the offline dump there: the same way round as under CHEMATIC_OFFLINE.
        const unreachable = e instanceof ToolError && (e.details.reason === "unavailable" || e.details.reason === "timeout");
        if (unreachable && env.CHEMBL_SQLITE?.trim()) throw new ToolError(e.code, e.message, e.details, DUMP_LOOKUP_HINT);
        throw e;
      });
      const out: Record<string, unknown> = { name: trimmed, smiles: match.smiles, source: "PubChem", cid: match.cid };
      if (match.otherCids.length > 0) out.other_cids = match.otherCids;
      return out;
    },
  };
}

/** Where a name goes when PubChem cannot be asked and the offline ChEMBL dump is there. */
const DUMP_LOOKUP_HINT =
  "ChEMBL's offline dump is configured (CHEMBL_SQLITE): look the name up with chembl_search_molecules (query: the name), " +
  "whose molecules carry their canonical SMILES; or give the structure as SMILES.";

export const nameToSmilesTool = createNameToSmilesTool();

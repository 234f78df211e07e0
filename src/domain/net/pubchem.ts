/**
 * PubChem PUG REST name -> structure lookup (Kim et al., Nucleic Acids Res. 2018, 46, W563; the service's
 * documentation at https://pubchem.ncbi.nlm.nih.gov/docs/pug-rest).
 *
 *   GET {base}/rest/pug/compound/name/{percent-encoded name}/property/SMILES,IsomericSMILES/JSON
 *   -> {"PropertyTable": {"Properties": [{"CID": 2244, "SMILES": "CC(=O)OC1=CC=CC=C1C(=O)O"}, ...]}}
 *
 * PubChem renamed IsomericSMILES to SMILES in 2025 (CanonicalSMILES became ConnectivitySMILES); the old name
 * is still accepted in the URL but answered under the new key, so SMILES is read first and IsomericSMILES is
 * the fallback for mirrors that predate the rename. A name containing "/" cannot travel in a URL path segment
 * (servers decode %2F), so it is sent as a form field instead: POST {base}/rest/pug/compound/name/property/
 * SMILES,IsomericSMILES/JSON with body name=...
 *
 * An InChI ("InChI=1S/...") is not a name: PubChem's name lookup does not resolve it, its InChI lookup does.
 * It is always sent as a form field (it holds "/"): POST {base}/rest/pug/compound/inchi/property/
 * SMILES,IsomericSMILES/JSON with body inchi=... (PUG REST's "inchi" input namespace).
 *
 * PUG REST errors: 404 PUGREST.NotFound (unknown name), 400 PUGREST.BadRequest, 503 PUGREST.ServerBusy,
 * 504 PUGREST.Timeout, 500 PUGREST.ServerError/Unknown. They map to PUBCHEM_LOOKUP_FAILED with details.reason
 * not_found (404, 400), timeout (504, our own deadline) or unavailable (everything else). PubChem's own text is
 * never passed on.
 */
import { ToolError } from "../errors.js";
import { HttpFailure, getJson } from "./http-client.js";

export const PUBCHEM_DEFAULT_BASE_URL = "https://pubchem.ncbi.nlm.nih.gov";
export const PUBCHEM_TIMEOUT_MS = 10_000;
const PUBCHEM_MAX_RESPONSE_BYTES = 1024 * 1024;
export const NAME_MAX_LENGTH = 500;
const PROPERTIES = "SMILES,IsomericSMILES";
const MAX_OTHER_CIDS = 20;

type PubChemFailureReason = "not_found" | "unavailable" | "timeout";

export interface PubChemMatch {
  smiles: string;
  cid: number | null;
  /** Further CIDs PubChem lists for the same name (at most 20). */
  otherCids: number[];
}

export interface PubChemLookupOptions {
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Extra trusted CAs (tests). */
  ca?: string | Buffer;
}

function failed(reason: PubChemFailureReason, message: string, details: Record<string, unknown> = {}): ToolError {
  return new ToolError("PUBCHEM_LOOKUP_FAILED", message, { reason, ...details });
}

/** PUBCHEM_API_BASE_URL (default PubChem itself), without a trailing slash. */
function pubchemBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env.PUBCHEM_API_BASE_URL?.trim() || PUBCHEM_DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw failed("unavailable", "The PubChem address this server is configured with (PUBCHEM_API_BASE_URL) is not a valid URL", {
      setting: "PUBCHEM_API_BASE_URL",
    });
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) {
    throw failed("unavailable", "PUBCHEM_API_BASE_URL must be an http(s) URL without query or fragment", { setting: "PUBCHEM_API_BASE_URL" });
  }
  return url.href.replace(/\/+$/, "");
}

interface PropertyTable {
  PropertyTable?: { Properties?: Array<{ CID?: unknown; SMILES?: unknown; IsomericSMILES?: unknown }> };
}

function plausibleSmiles(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 100_000 && !/\s/.test(value);
}

/** Whether a lookup string is an InChI, which goes to PubChem's InChI lookup instead of its name lookup. */
function isInchiString(name: string): boolean {
  return name.startsWith("InChI=");
}

/**
 * Looks a chemical name, or an InChI, up in PubChem. Throws PUBCHEM_LOOKUP_FAILED (details.reason) on every
 * failure.
 */
export async function lookupName(name: string, options: PubChemLookupOptions = {}): Promise<PubChemMatch> {
  const base = pubchemBaseUrl(options.env);
  const timeoutMs = options.timeoutMs ?? PUBCHEM_TIMEOUT_MS;
  const inchi = isInchiString(name);
  const what = inchi ? "InChI" : "name";
  const field = inchi ? "inchi" : "name";
  const viaPost = inchi || name.includes("/");
  const url = viaPost
    ? `${base}/rest/pug/compound/${field}/property/${PROPERTIES}/JSON`
    : `${base}/rest/pug/compound/name/${encodeURIComponent(name)}/property/${PROPERTIES}/JSON`;
  let data: PropertyTable;
  try {
    const response = await getJson<PropertyTable>(url, {
      timeoutMs,
      maxBytes: PUBCHEM_MAX_RESPONSE_BYTES,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.ca ? { ca: options.ca } : {}),
      ...(viaPost
        ? { method: "POST" as const, headers: { "content-type": "application/x-www-form-urlencoded" }, body: `${field}=${encodeURIComponent(name)}` }
        : {}),
    });
    data = response.data;
  } catch (e) {
    if (!(e instanceof HttpFailure)) throw e;
    throw classify(e, timeoutMs, what);
  }

  const rows = data?.PropertyTable?.Properties;
  if (!Array.isArray(rows)) throw failed("unavailable", "PubChem answered without a property table", {});
  if (rows.length === 0) throw failed("not_found", `PubChem found no compound for that ${what}`, {});
  const first = rows[0]!;
  const smiles = plausibleSmiles(first.SMILES) ? first.SMILES : plausibleSmiles(first.IsomericSMILES) ? first.IsomericSMILES : null;
  if (smiles === null) throw failed("not_found", `PubChem has no SMILES for the compound that ${what} refers to`, {});
  const cidOf = (v: unknown) => (typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : null);
  const otherCids = rows
    .slice(1)
    .map((r) => cidOf(r?.CID))
    .filter((c): c is number => c !== null)
    .slice(0, MAX_OTHER_CIDS);
  return { smiles, cid: cidOf(first.CID), otherCids };
}

function classify(e: HttpFailure, timeoutMs: number, what: string): ToolError {
  switch (e.kind) {
    case "timeout":
      return failed("timeout", `PubChem did not answer within ${timeoutMs / 1000} s`, { timeout_ms: timeoutMs });
    case "aborted":
      return failed("timeout", "The PubChem lookup was cancelled before PubChem answered", {});
    case "status": {
      const status = e.status ?? 0;
      if (status === 404) return failed("not_found", `PubChem found no compound for that ${what}`, { upstream_status: status });
      if (status === 400) return failed("not_found", `PubChem could not interpret that ${what}`, { upstream_status: status });
      if (status === 504) return failed("timeout", "PubChem timed out on this lookup", { upstream_status: status });
      const retryAfter = Number(e.headers?.["retry-after"]);
      return failed("unavailable", `PubChem is unavailable (HTTP ${status})`, {
        upstream_status: status,
        ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retry_after_s: retryAfter } : {}),
      });
    }
    case "invalid_json":
      return failed("unavailable", "PubChem's answer was not valid JSON", { upstream_status: e.status ?? null });
    case "too_large":
      return failed("unavailable", "PubChem's answer was unexpectedly large", {});
    case "network":
      return failed("unavailable", "PubChem could not be reached", e.code ? { network_error: e.code } : {});
  }
}

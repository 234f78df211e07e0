/**
 * The release every answer names (from ChEMBL's /status, cached, refreshed after statusTtlMs) and the CC
 * BY-SA 3.0 attribution that goes with the data. A new release clears the response cache.
 */
import { normalizeStatus } from "./normalise.js";
import { Call, type ChemblRequests } from "./request.js";
import type { Source } from "./types.js";

export const LICENSE_URL = "https://creativecommons.org/licenses/by-sa/3.0/";
export const CITATION =
  "Zdrazil B. et al. The ChEMBL Database in 2023: a drug discovery platform spanning multiple bioactivity data types and time periods. " +
  "Nucleic Acids Res. 2024;52(D1):D1180-D1192. doi:10.1093/nar/gkad1004";

export function sourceOf(release: string | null, releaseDate: string | null, dump?: string): Source {
  return {
    ...(dump !== undefined ? { dump } : {}),
    database: "ChEMBL",
    release,
    release_date: releaseDate,
    license: "CC BY-SA 3.0",
    license_url: LICENSE_URL,
    attribution:
      `Data from ChEMBL${release ? ` release ${release}` : ""} (EMBL-EBI), licensed under CC BY-SA 3.0 (${LICENSE_URL}); ` +
      `keep this attribution and licence when redistributing. Cite: ${CITATION}`,
  };
}

const STATUS_TTL_MS = 3_600_000;
const STATUS_FAILURE_TTL_MS = 30_000;
const STATUS_TIMEOUT_MS = 5_000;

export class ReleaseLookup {
  private status: { value: { release: string | null; release_date: string | null }; expires: number } | undefined;
  private statusInFlight: Promise<{ release: string | null; release_date: string | null }> | undefined;
  private lastRelease: string | undefined;

  constructor(
    private readonly requests: ChemblRequests,
    /** How long the release name from /status is trusted. */
    private readonly statusTtlMs = STATUS_TTL_MS,
    /** The SQLite dump's file name when the offline source answers (named in every answer's source). */
    private readonly dump?: string,
  ) {}

  /** The release and attribution; never fails the call (a failed status read names no release). */
  async source(): Promise<Source> {
    const { release, release_date } = await this.releaseInfo();
    return sourceOf(release, release_date, this.dump);
  }

  private releaseInfo(): Promise<{ release: string | null; release_date: string | null }> {
    if (this.status && this.status.expires > Date.now()) return Promise.resolve(this.status.value);
    this.statusInFlight ??= (async () => {
      // Its own short budget, not the caller's: a slow status must not hold a finished answer back.
      const budget = Math.min(STATUS_TIMEOUT_MS, this.requests.config.requestTimeoutMs, this.requests.config.deadlineMs);
      const call = new Call(Date.now() + budget, AbortSignal.timeout(budget + 50), budget);
      try {
        const body = await this.requests.fetchJson("status", [], { what: "the release status" }, call, {
          cache: false,
          maxAttempts: 1,
          accept: (v) => "chembl_db_version" in v,
        });
        const value = normalizeStatus(body);
        // A new release changes every record: answers cached under the old one go.
        const before = this.lastRelease;
        if (before !== undefined && value.release !== null && value.release !== before) this.requests.cache.clear();
        if (value.release !== null) this.lastRelease = value.release;
        this.status = { value, expires: Date.now() + this.statusTtlMs };
        return value;
      } catch {
        const value = { release: null, release_date: null };
        this.status = { value, expires: Date.now() + Math.min(STATUS_FAILURE_TTL_MS, this.statusTtlMs) };
        return value;
      } finally {
        this.statusInFlight = undefined;
      }
    })();
    return this.statusInFlight;
  }

  /** Runs the call's main work and the release lookup side by side. */
  async withSource<T>(work: Promise<T>): Promise<T & { source: Source }> {
    const [value, source] = await Promise.all([work, this.source()]);
    return { ...value, source };
  }
}

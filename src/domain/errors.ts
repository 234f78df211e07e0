/**
 * The one vocabulary of domain error codes, shared by every tool (see the README, "Errors").
 * A tool throws a ToolError; the server decides how each protocol era carries it.
 * Every code has a default recovery hint written for an agent: what to change before retrying.
 */

export const ERROR_HINTS = {
  INVALID_ARGUMENTS: "Change the argument that details.path names as the message says (send what it asks for instead), then call again.",
  INVALID_SMILES:
    "Check the SMILES near the reported position (brackets, ring-closure digits, valences); canonicalise a known-good form or look the name up with name_to_smiles.",
  INVALID_SMARTS: "Check the SMARTS pattern syntax (brackets, recursive $() groups, logical operators) and call again.",
  INVALID_MOLJSON: "Fix the MolJSON field named in details.path (see smiles_to_moljson for the schema) and call again.",
  MOLECULE_TOO_LARGE: "Send a smaller molecule (details gives the atom count and the cap), or split it into fragments.",
  DISCONNECTED_MOLECULE: "Send a single connected molecule: remove salts and counter-ions (the parts after '.').",
  EMBEDDING_FAILED:
    "The 3D builder could not place this structure; details.cause says why (random: try another seed; structure, force_field or macrocycle: another seed will not help).",
  TIMEOUT: "The computation exceeded its time budget; retry with a smaller input or tighter options.",
  BUSY: "The server is at capacity; wait a moment and retry.",
  OFFLINE: "Networked tools are disabled (CHEMATIC_OFFLINE); use a local tool or ask the operator to enable the network.",
  PUBCHEM_LOOKUP_FAILED: "Check the name's spelling or try a synonym, a CAS number or a SMILES; if details.reason is unavailable or timeout, retry later.",
  NOT_FOUND: "Check the identifier (for ChEMBL, the CHEMBL prefix and number) or search first.",
  UPSTREAM_UNAVAILABLE: "The upstream service is failing; retry later.",
  RATE_LIMITED: "The upstream service is rate limiting; wait details.retry_after_s seconds, then retry.",
  INVALID_STRUCTURE: "The upstream service rejected the structure; canonicalise it with canonical_smiles and retry.",
  DEADLINE_EXCEEDED:
    "The upstream service did not answer within the call's deadline; retry later (a narrower query does not help a service that is not answering).",
  CANVAS_DISABLED: "The canvas is off on this server; request results inline with a limit and cursor instead.",
  CANVAS_NOT_FOUND: "The canvas id is unknown or expired; re-run the query that staged it.",
  CANVAS_FULL:
    "The table or the canvas would pass its cap (details.max_table_rows or details.max_bytes); split the data over tables or canvases, or drop tables first.",
  PATH_REFUSED:
    "Name a regular .smi, .csv, .sdf or .sdf.gz file inside the import directory, by a relative path without '..' (details.reason says what was wrong).",
  QUERY_REFUSED: "Send exactly one read-only SELECT or WITH statement against the staged tables.",
  QUEUE_TIMEOUT: "The call waited its time for a free slot behind other callers' work and was not run; retry in a moment.",
  QUOTA_EXCEEDED:
    "You hold as many canvases (or as much canvas data) as one caller may and all are in use; wait for your queries to finish or drop canvases (chembl_dataframe_drop).",
  QUERY_TIMEOUT: "The SQL query exceeded its time budget; add filters or a LIMIT and retry.",
  WRITE_FAILED:
    "The file could not be written and nothing was left behind; details.reason says why (disk_full: free space or export fewer rows, io_error: check the directory).",
  TOOL_DISABLED: "The tool is switched off on this server; details.setting names the variable an operator sets to enable it.",
} as const;

export type ErrorCode = keyof typeof ERROR_HINTS;

export const ERROR_CODES = Object.keys(ERROR_HINTS) as ErrorCode[];

export type ErrorDetails = Record<string, unknown>;

/** The wire shape carried in structuredContent.error. */
export interface DomainErrorPayload {
  code: ErrorCode;
  message: string;
  hint: string;
  details: ErrorDetails;
}

export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly hint: string;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, hint?: string) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.details = details;
    this.hint = hint ?? ERROR_HINTS[code];
  }

  toPayload(): DomainErrorPayload {
    return { code: this.code, message: this.message, hint: this.hint, details: this.details };
  }

  static fromPayload(p: DomainErrorPayload): ToolError {
    return new ToolError(p.code, p.message, p.details, p.hint);
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(ERROR_HINTS, value);
}

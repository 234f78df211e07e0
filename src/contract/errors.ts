/**
 * Errors that cross layers without being a domain failure (those are ToolError, domain/errors.ts).
 */

/** A call the client cancelled: it gets no answer at all, in any era. */
export class CancelledError extends Error {
  constructor() {
    super("cancelled");
    this.name = "CancelledError";
  }
}

/**
 * The authentication the HTTP transport runs (`--auth bearer|oauth`), as transports see it: the contract
 * between src/domain/auth (which judges tokens) and src/transport/http.ts (which answers refusals and hands
 * the accepted caller's owner key to the tools).
 */
export type { Caller, HttpAuthenticator } from "../domain/auth/types.js";

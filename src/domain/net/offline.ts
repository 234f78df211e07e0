/**
 * CHEMATIC_OFFLINE: when on, every networked tool answers OFFLINE before any request is made.
 * Parsed strictly (src/config.ts parseBoolean). A value that is not a boolean keeps networked tools off
 * (fail closed: whoever set it meant to restrict the network) and the error names the variable.
 */
import { ConfigError, parseBoolean } from "../../config.js";
import { ToolError } from "../errors.js";

export type OfflineState = { offline: false } | { offline: true; invalid?: string };

export function offlineState(env: NodeJS.ProcessEnv = process.env): OfflineState {
  try {
    return parseBoolean("CHEMATIC_OFFLINE", env.CHEMATIC_OFFLINE, false) ? { offline: true } : { offline: false };
  } catch (e) {
    if (e instanceof ConfigError) return { offline: true, invalid: e.message };
    throw e;
  }
}

/** Throws OFFLINE when networked tools are disabled; `tool` names the caller in the message. */
export function assertOnline(tool: string, env: NodeJS.ProcessEnv = process.env): void {
  const state = offlineState(env);
  if (!state.offline) return;
  if (state.invalid !== undefined) {
    throw new ToolError(
      "OFFLINE",
      `${tool} needs the network, and networked tools stay disabled because ${state.invalid}`,
      { tool, variable: "CHEMATIC_OFFLINE", invalid_value: true },
      "Ask the operator to set CHEMATIC_OFFLINE to 0 (network on) or 1 (network off) and restart the server; meanwhile give the structure as SMILES.",
    );
  }
  throw new ToolError(
    "OFFLINE",
    `${tool} needs the network, and this server runs offline (CHEMATIC_OFFLINE=${env.CHEMATIC_OFFLINE})`,
    { tool, variable: "CHEMATIC_OFFLINE" },
    "Networked tools are disabled by CHEMATIC_OFFLINE. To enable them, restart the server without CHEMATIC_OFFLINE (or with CHEMATIC_OFFLINE=0); meanwhile give the structure as SMILES or use a local tool.",
  );
}

#!/usr/bin/env node
/**
 * The chematic-mcp command (see commands.ts for what it does). When the command serves (no subcommand), the
 * first chemistry worker is started before the server's modules are imported, so the two load side by side
 * (server/prestart.ts); then commands.ts runs the command.
 */
import { prestartWorker } from "./server/prestart.js";

const [first] = process.argv.slice(2);
const serving = first === undefined || (first.startsWith("-") && !["--help", "-h", "--version", "-V", "-v"].includes(first));
if (serving) prestartWorker();
await import("./commands.js");

#!/usr/bin/env node
/**
 * Runs shell commands side by side and fails when any fails: `npm test`'s checks before the tests (eslint, and
 * prettier then tsc) are each one single-threaded process, so run one after another they leave a core idle.
 * Each command's output (stdout and stderr, in order) is printed as one block when it ends, so two tools'
 * messages never interleave; every command runs to its end, so one run reports every failure.
 *
 * Usage: node scripts/run-parallel.mjs "<command>" "<command>" ...
 */
import { spawn } from "node:child_process";

const commands = process.argv.slice(2);
if (commands.length === 0) {
  console.error("usage: node scripts/run-parallel.mjs <command> [<command> ...]");
  process.exit(2);
}

const started = Date.now();
const codes = await Promise.all(
  commands.map(
    (command) =>
      new Promise((resolve) => {
        const child = spawn(command, { shell: true, stdio: ["ignore", "pipe", "pipe"] });
        const chunks = [];
        child.stdout.on("data", (d) => chunks.push(d));
        child.stderr.on("data", (d) => chunks.push(d));
        child.on("error", (e) => chunks.push(Buffer.from(`${e.message}\n`)));
        child.on("close", (code, signal) => {
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          const status = code === 0 ? "ok" : `failed (${signal ?? `exit ${code}`})`;
          process.stdout.write(`\n> ${command}: ${status} after ${seconds} s\n`);
          process.stdout.write(Buffer.concat(chunks));
          resolve(code ?? 1);
        });
      }),
  ),
);
process.exit(codes.find((c) => c !== 0) ?? 0);

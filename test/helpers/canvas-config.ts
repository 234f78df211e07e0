/** A canvas configuration for in-process tests: every bound at its default, in memory, no import or export directory. */
import type { CanvasConfig } from "../../src/config.js";

export function testCanvasConfig(overrides: Partial<CanvasConfig> = {}): CanvasConfig {
  return {
    enabled: true,
    dir: null,
    keepDays: 7,
    maxSpillRows: 50_000,
    dropEnabled: false,
    maxTableRows: 100_000,
    maxBytes: 256 * 1024 * 1024,
    importDir: null,
    exportDir: null,
    importMaxBytes: 128 * 1024 * 1024,
    importMaxColumns: 1_000,
    processMaxBytes: 4096 * 1024 * 1024,
    maxCanvasesPerCaller: 8,
    callerMaxBytes: 1024 * 1024 * 1024,
    replicaId: null,
    ...overrides,
  };
}

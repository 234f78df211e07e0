/** Renders docs/benchmarks.md from one run's tables and a few facts for the prose. */

export interface StdioFact {
  tool: string;
  inFlight: number;
  vsSdk: number;
  vsInProcess: number;
  sdkVsInProcess: number;
}

export interface ReportInput {
  machine: string[];
  settings: {
    cores: number;
    rounds: number;
    fixedN: number | undefined;
    targetSeconds: number;
    httpSeconds: number;
    httpConnections: number;
    coldRuns: number;
    memoryCalls: number;
    chemblRuns: number;
    chemblRows: number;
    chemblLatencyMs: number;
  };
  stdio?: { table: string; latency: string; facts: StdioFact[] } | undefined;
  http?: { table: string } | undefined;
  cold?: { table: string } | undefined;
  memory?: { table: string } | undefined;
  chembl?: { table: string; spillTool: string | undefined } | undefined;
}

export function renderReport(input: ReportInput): string {
  const parts: string[] = ["# Benchmarks", "", ...input.machine, ""];
  if (input.stdio) parts.push("## stdio", "", input.stdio.table, "", input.stdio.latency, "");
  if (input.http) parts.push("## HTTP", "", input.http.table, "");
  if (input.cold) parts.push("## Cold start", "", input.cold.table, "");
  if (input.memory) parts.push("## Memory", "", input.memory.table, "");
  if (input.chembl) parts.push("## ChEMBL", "", input.chembl.table, "");
  return parts.join("\n");
}

/**
 * Worker-only (not in tools/list): one step of an offline ChEMBL structure search, run in the chemistry
 * pool for chembl_search_molecules when CHEMBL_SQLITE has a structure index. The service plans the search
 * and spreads shards of the index over every worker with ChemRunner.runList; each item here is the
 * query's fingerprints, or one shard's similarity or substructure scan (src/domain/chembl/structures/scan.ts).
 */
import type { ChemTool } from "../contract/tool.js";
import { queryStep, scanSimilarity, scanSubstructure, type QueryPrints, type ShardHits } from "../domain/chembl/structures/scan.js";
import type { ScanItem } from "../domain/chembl/structures/search.js";
import { READ_ONLY_LOCAL } from "./common.js";

export const chemblStructureScanTool: ChemTool<ScanItem, QueryPrints | ShardHits> = {
  kind: "chem",
  toolset: "chembl",
  name: "chembl_structure_scan",
  title: "ChEMBL structure index: one scan step",
  description: "Worker-only: the query's fingerprints, or one shard of an offline similarity or substructure search over the dump's structure index.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: { type: "object" },
  outputSchema: { type: "object" },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE", "UPSTREAM_UNAVAILABLE"],
  budgetMs: 55_000,
  run(item, { rdkit }) {
    switch (item.kind) {
      case "query":
        return queryStep(rdkit, item);
      case "similarity":
        return scanSimilarity(item);
      case "substructure":
        return scanSubstructure(rdkit, item);
    }
  },
};

/**
 * Worker-only (not in tools/list): one step of an offline ChEMBL structure search, run in the chemistry
 * pool for chembl_search_molecules when CHEMBL_SQLITE has a structure index. The service plans the search
 * and spreads shards of the index over every worker with ChemRunner.runList; each item here is the
 * query's fingerprints, or one shard's similarity or substructure scan (src/domain/chembl/structures/scan.ts).
 */
import { queryStep, scanSimilarity, scanSubstructure, type QueryPrints, type ShardHits } from "../domain/chembl/structures/scan.js";
import type { ScanItem } from "../domain/chembl/structures/search.js";
import { workerOnlyTool } from "./common.js";

export const chemblStructureScanTool = workerOnlyTool<ScanItem, QueryPrints | ShardHits>({
  toolset: "chembl",
  name: "chembl_structure_scan",
  title: "ChEMBL structure index: one scan step",
  description: "Worker-only: the query's fingerprints, or one shard of an offline similarity or substructure search over the dump's structure index.",
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
});

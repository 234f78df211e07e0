/**
 * What the benchmark and the soak send: drug-like molecules (small to mid-sized, a salt, stereo) and the
 * four tools the issue names. Every server and the in-process loop get the same arguments in the same order.
 */
export const MOLECULES = [
  "CC(=O)Oc1ccccc1C(=O)O", // aspirin
  "CN1C=NC2=C1C(=O)N(C(=O)N2C)C", // caffeine
  "CC(C)Cc1ccc(cc1)C(C)C(=O)O", // ibuprofen
  "Cc1ccc(cc1Nc1nccc(n1)c1cccnc1)NC(=O)c1ccc(cc1)CN1CCN(C)CC1", // imatinib
  "COc1ccc2[nH]cc(CCN(C)C)c2c1", // 5-MeO-DMT
  "CC1(C)S[C@@H]2[C@H](NC(=O)Cc3ccccc3)C(=O)N2[C@H]1C(=O)O", // penicillin G
  "CCN(CC)CCNC(=O)c1ccc(N)cc1", // procainamide
  "OC(=O)c1ccccc1O", // salicylic acid
  "O=C(O)C[C@@H](O)C(=O)O.[Na+]", // a salt with stereo
  "CC(C)(C)NC[C@@H](O)c1ccc(O)c(CO)c1", // salbutamol
] as const;

/** The tools the issue benchmarks, in the order the tables show them. */
export const BENCH_TOOLS = ["canonical_smiles", "calc_properties", "ecfp4", "sa_score"] as const;

/** Arguments of call number i. */
export function argsFor(_tool: string, i: number): Record<string, unknown> {
  return { smiles: MOLECULES[i % MOLECULES.length]! };
}

/** The 2026-07-28 request `_meta` every call carries. */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "chematic-bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

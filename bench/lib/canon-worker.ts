/**
 * A bench helper thread: RDKit's canonical SMILES of each SMILES it is sent (null when RDKit cannot parse
 * it), every molecule deleted. chembl-structures.ts uses two of them to make its synthetic dump distinct.
 */
import { parentPort } from "node:worker_threads";
import { loadRDKit } from "../../src/domain/chem/rdkit.js";

const rdkit = await loadRDKit();
parentPort!.on("message", (batch: string[]) => {
  const out = batch.map((smiles) => {
    const mol = rdkit.get_mol(smiles);
    if (!mol) return null;
    try {
      return mol.is_valid() ? mol.get_smiles() : null;
    } finally {
      mol.delete();
    }
  });
  parentPort!.postMessage(out);
});

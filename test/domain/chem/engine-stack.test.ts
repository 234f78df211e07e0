/**
 * RDKit's C++ stack, moved to a block of 8 MiB with a painted guard (engine-stack.ts). Runs in this test's
 * own thread: the module is loaded here with the default stack.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_ENGINE_STACK_BYTES, GUARD_BYTES, checkEngineStack, engineStackInfo, measureEngineStack } from "../../../src/domain/chem/engine-stack.js";
import { loadRDKit, withMol } from "../../../src/domain/chem/rdkit.js";

test("the engine stack is moved and guarded when RDKit loads (an RDKit upgrade that breaks this fails here)", async () => {
  await loadRDKit();
  const info = engineStackInfo();
  assert.deepEqual(info, { installed: true, bytes: DEFAULT_ENGINE_STACK_BYTES, guardBytes: GUARD_BYTES });
  assert.deepEqual(checkEngineStack(), { sound: true });
});

test("writing a chain's SMILES takes about 112 bytes of engine stack per atom, and the atom cap fits with room to spare", async () => {
  const rdkit = await loadRDKit();
  const used = (atoms: number) => {
    const { value, bytes } = measureEngineStack(() => withMol(rdkit, "C".repeat(atoms), (mol) => mol.get_smiles(), { maxAtoms: 10_000 }));
    assert.equal(value, "C".repeat(atoms));
    return bytes;
  };
  const perAtom = (used(2_000) - used(1_000)) / 1_000;
  assert.ok(perAtom > 50 && perAtom < 250, `${perAtom} bytes per atom`);
  // 600 atoms: past RDKit's linked 64 KiB, which is how the overflow was found.
  assert.ok(used(600) > 64 * 1024);
  // The atom cap by extrapolation: this thread's own stack (about 1 MiB, against a worker's 4 MiB) gives out
  // before 5,000 chained atoms; the pool test runs long chains in workers.
  const atCap = used(1_000) + perAtom * 9_000;
  assert.ok(atCap < (DEFAULT_ENGINE_STACK_BYTES - GUARD_BYTES) / 4, `the atom cap needs about ${atCap} bytes, under a quarter of the stack`);
  assert.deepEqual(checkEngineStack(), { sound: true }, "no call reached the guard");
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit } from "../../src/domain/chem/rdkit.js";
import { ToolError } from "../../src/domain/errors.js";
import { enumerateReactionTool } from "../../src/tools/enumerate_reaction.js";
import { enumerateReaction, reactantTemplateCount } from "../../src/domain/chem/reaction.js";

const ctx = async () => ({ rdkit: await loadRDKit(), progress: () => {} });
const AMIDE = "[C:1](=[O:2])[OH].[N;!H0:3]>>[C:1](=[O:2])[N:3]";

test("enumerate_reaction: amide coupling of 2 acids x 2 amines gives 4 canonical products with their reactant indices", async () => {
  const r = enumerateReactionTool.run(
    {
      reaction_smarts: AMIDE,
      reactants: [
        ["CC(=O)O", "OC(=O)c1ccccc1"],
        ["NCC", "C1CCNCC1"],
      ],
    },
    await ctx(),
  );
  assert.deepEqual(r.products, [
    { smiles: "CCNC(C)=O", reactant_indices: [0, 0] },
    { smiles: "CC(=O)N1CCCCC1", reactant_indices: [0, 1] },
    { smiles: "CCNC(=O)c1ccccc1", reactant_indices: [1, 0] },
    { smiles: "O=C(c1ccccc1)N1CCCCC1", reactant_indices: [1, 1] },
  ]);
  assert.equal(r.product_count, 4);
  assert.equal(r.combinations, 4);
  assert.equal(r.sanitization_failures, 0);
  assert.equal(r.truncated, false);
  assert.equal("returned" in r, false);
});

test("enumerate_reaction: duplicates are kept once, unsanitisable outcomes are counted, bad reactants are listed and skipped", async () => {
  const dup = enumerateReactionTool.run({ reaction_smarts: AMIDE, reactants: [["OC(=O)CC(=O)O"], ["NCCN"]] }, await ctx());
  assert.deepEqual(dup.products, [{ smiles: "NCCNC(=O)CC(=O)O", reactant_indices: [0, 0] }]);
  const bad = enumerateReactionTool.run({ reaction_smarts: "[CH3:1]>>[C:1](F)(F)(F)F", reactants: [["CC", "C1CC("]] }, await ctx());
  assert.equal(bad.products.length, 0);
  assert.equal(bad.sanitization_failures, 2);
  assert.deepEqual(
    bad.invalid_reactants?.map((i) => [i.template, i.index, i.code]),
    [[0, 1, "INVALID_SMILES"]],
  );
});

test("enumerate_reaction: one list per template, a bad reaction SMARTS is INVALID_SMARTS", async () => {
  assert.equal(reactantTemplateCount(AMIDE), 2);
  assert.equal(reactantTemplateCount("([C:1].[C:2])>>[C:1][C:2]"), 1);
  assert.throws(
    () => enumerateReactionTool.run({ reaction_smarts: AMIDE, reactants: [["CC(=O)O"]] }, { rdkit: undefined as never, progress: () => {} }),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENTS" && /2 reactant templates and reactants holds 1 list/.test(e.message),
  );
  await assert.rejects(
    async () => enumerateReactionTool.run({ reaction_smarts: "[C:1>>C", reactants: [["CC"]] }, await ctx()),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_SMARTS",
  );
});

test("enumerate_reaction: past max_products the run stops with truncated_by max_products; past the deadline with time_budget", async () => {
  const { rdkit } = await ctx();
  const acids = Array.from({ length: 5 }, (_, i) => `${"C".repeat(i + 1)}C(=O)O`);
  const amines = Array.from({ length: 5 }, (_, i) => `${"C".repeat(i + 1)}N`);
  const r = enumerateReaction(rdkit, AMIDE, [acids, amines], { deadline: Date.now() + 10_000, maxProducts: 7 });
  assert.equal(r.products.length, 7);
  assert.equal(r.truncated, true);
  assert.equal(r.truncated_by, "max_products");
  const late = enumerateReaction(rdkit, AMIDE, [acids, amines], { deadline: Date.now() - 1 });
  assert.equal(late.truncated_by, "time_budget");
  assert.equal(late.combinations_run, 0);
});

/** generate_3d's progress from the conformer build's steps: readable messages, values that only increase, a retry's own span. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { conformerProgress } from "../../src/tools/generate_3d.js";
import type { ConformerStep } from "../../src/domain/chem/conformers.js";

test("each step is reported with a larger value; duplicates move it a fraction; a retry adds a span to the total", () => {
  const sent: Array<[number, number | undefined, string | undefined]> = [];
  const report = conformerProgress((p, t, m) => sent.push([p, t, m]), 3);
  const steps: ConformerStep[] = [
    { step: "fragments" },
    { step: "ready" },
    { step: "conformer", kept: 1, duplicates: 0, wanted: 3 },
    { step: "conformer", kept: 1, duplicates: 1, wanted: 3 },
    { step: "conformer", kept: 1, duplicates: 2, wanted: 3 },
    { step: "conformer", kept: 2, duplicates: 2, wanted: 3 },
    { step: "conformer", kept: 3, duplicates: 2, wanted: 3 },
    // All three lost the input's stereo: the build starts again, its counts from zero.
    { step: "fragments" },
    { step: "ready" },
    { step: "conformer", kept: 1, duplicates: 0, wanted: 3 },
  ];
  for (const s of steps) report(s);
  assert.deepEqual(sent, [
    [1, 4, "rigid fragments built; minimising 3 conformers (MMFF94s)"],
    [2, 4, "1 of 3 conformers minimised"],
    [2.5, 4, "1 of 3 conformers minimised; 1 duplicate dropped"],
    [2 + 2 / 3, 4, "1 of 3 conformers minimised; 2 duplicates dropped"],
    [3, 4, "2 of 3 conformers minimised; 2 duplicates dropped"],
    [4, 4, "3 of 3 conformers minimised; 2 duplicates dropped"],
    [4.5, 8, "no usable conformer yet: building again with OpenChemLib's full fragment search"],
    [5, 8, "rigid fragments built; minimising 3 conformers (MMFF94s)"],
    [6, 8, "1 of 3 conformers minimised"],
  ]);
});

test("one conformer asked for: singular words", () => {
  const sent: Array<string | undefined> = [];
  const report = conformerProgress((_p, _t, m) => sent.push(m), 1);
  report({ step: "fragments" });
  report({ step: "ready" });
  report({ step: "conformer", kept: 1, duplicates: 0, wanted: 1 });
  assert.deepEqual(sent, ["rigid fragments built; minimising 1 conformer (MMFF94s)", "1 of 1 conformer minimised"]);
});

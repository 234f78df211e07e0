/**
 * murcko_scaffold: the Bemis-Murcko scaffold of a molecule (or, with generic, its all-carbon single-bond
 * framework), equal to RDKit's GetScaffoldForMol and MakeScaffoldGeneric(GetScaffoldForMol(m)) (see
 * src/domain/chem/scaffold.ts). Per molecule, with the list form (smiles_list, sdf) and, for a list, the
 * group_by_scaffold summary; on a canvas table it writes the scaffold as a column (canvas_annotate's
 * murcko_scaffold or generic_scaffold kind, the same code per row).
 */
import { keepingAtomMaps } from "../domain/chem/atom-maps.js";
import { ToolError } from "../domain/errors.js";
import { withMol } from "../domain/chem/rdkit.js";
import { genericScaffold, murckoScaffold, scaffoldHints } from "../domain/chem/scaffold.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import type { ChemTool, ListSummary } from "../contract/tool.js";
import { smilesProperty } from "./common.js";
import { CANVAS_SET_DEPENDENCIES, canvasSetProperties, CANVAS_WRITE_ANNOTATIONS } from "./canvas-set.js";
import { annotateForm } from "./canvas_annotate.js";

interface Args {
  smiles: string;
  generic?: boolean;
  canvas_id?: string;
  table?: string;
  smiles_column?: string;
  where?: string;
}

interface Result {
  scaffold: string;
  [k: string]: unknown;
}

/** group_by_scaffold: one group per distinct scaffold, largest first (ties by the first member's index). */
export function groupByScaffold(results: ReadonlyArray<{ scaffold?: unknown } | undefined>): Array<{ scaffold: string; count: number; members: number[] }> {
  const groups = new Map<string, number[]>();
  results.forEach((r, index) => {
    if (typeof r?.scaffold !== "string") return;
    const members = groups.get(r.scaffold);
    if (members) members.push(index);
    else groups.set(r.scaffold, [index]);
  });
  return [...groups]
    .map(([scaffold, members]) => ({ scaffold, count: members.length, members }))
    .sort((a, b) => b.count - a.count || a.members[0]! - b.members[0]!);
}

const GROUP_SUMMARY: ListSummary = {
  key: "group_by_scaffold",
  schema: {
    type: "array",
    description:
      "The list's entries grouped by scaffold: largest group first (ties by first member); '' groups the acyclic molecules; failed entries are in none.",
    items: {
      type: "object",
      properties: {
        scaffold: { type: "string", description: "The scaffold SMILES ('' for acyclic molecules)." },
        count: { type: "integer", minimum: 1, description: "Entries with this scaffold." },
        members: { type: "array", items: { type: "integer", minimum: 0 }, description: "Their indices in the list, ascending." },
      },
      required: ["scaffold", "count", "members"],
      additionalProperties: false,
    },
  },
  build: (results) => groupByScaffold(results as Array<{ scaffold?: unknown } | undefined>),
};

export function createMurckoScaffoldTool(canvases: () => CanvasManager = getCanvasManager): ChemTool<Args, Result> {
  return {
    kind: "chem",
    toolset: "medchem",
    name: "murcko_scaffold",
    title: "Bemis-Murcko scaffold",
    description: "Bemis-Murcko scaffold (equal to RDKit), or the generic framework; a list also groups molecules by scaffold.",
    annotations: CANVAS_WRITE_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        smiles: smilesProperty(),
        generic: {
          type: "boolean",
          default: false,
          description: "The generic framework instead.",
        },
        ...canvasSetProperties(),
      },
      required: ["smiles"],
      dependentRequired: CANVAS_SET_DEPENDENCIES,
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        scaffold: { type: "string", description: "Canonical SMILES of the scaffold (the generic framework with generic: true); '' for an acyclic molecule." },
      },
      required: ["scaffold"],
      additionalProperties: false,
    },
    errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE", "CANVAS_DISABLED", "CANVAS_NOT_FOUND"],
    budgetMs: 10_000,
    list: { maxItems: 10_000, budgetMs: 50_000, summary: GROUP_SUMMARY },
    mainForm: annotateForm<Args>(canvases, (args) => [args.generic ? "generic_scaffold" : "murcko_scaffold"]),
    run({ smiles, generic = false }, { rdkit }) {
      // Atom map numbers stay on the scaffold's atoms, as native GetScaffoldForMol keeps them.
      const scaffold = withMol(rdkit, smiles, (mol) =>
        keepingAtomMaps(rdkit, mol, (m) => {
          const hints = scaffoldHints(smiles, m.get_num_atoms());
          return generic ? genericScaffold(rdkit, m, hints) : murckoScaffold(rdkit, m, hints);
        }),
      );
      if (scaffold === null) {
        throw new ToolError(
          "INVALID_SMILES",
          "RDKit could not write this molecule's scaffold as SMILES",
          { argument: "smiles" },
          "Standardise the molecule (standardize) and try again.",
        );
      }
      return { scaffold };
    },
  };
}

export const murckoScaffoldTool = createMurckoScaffoldTool();

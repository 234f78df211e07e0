import { MOLJSON_SCHEMA } from "../domain/chem/moljson.js";
import { FORMATS, TASKS, TASK_FORMATS, computeRepresentations } from "../domain/chem/representations.js";
import type { Format, Task } from "../domain/chem/representations.js";
import { withMol } from "../domain/chem/rdkit.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

interface Args {
  smiles: string;
  task?: Task;
  formats?: Array<Format | "all">;
  coordinates?: boolean;
}

/** Half the 1 MiB response limit, less room for the envelope. */
const REPLY_BUDGET_BYTES = 480_000;

const nullable = (schema: Record<string, unknown>, description: string) => ({ description, anyOf: [schema, { type: "null" }] });

export const representationRouterTool: ChemTool<Args> = {
  kind: "chem",
  toolset: "chem",
  name: "representation_router",
  title: "Best molecule representation for a task",
  description:
    "Pick the representation a task needs and return it with the reason: structural_reasoning or shortest_path MolJSON, identification InChI, editing CML, " +
    "else canonical SMILES.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles: smilesProperty(),
      task: {
        type: "string",
        enum: [...TASKS],
        default: "default",
        description: "What the representation is for.",
      },
      formats: {
        type: "array",
        maxItems: FORMATS.length + 1,
        uniqueItems: true,
        items: { type: "string", enum: [...FORMATS, "all"] },
        description: "Also return these.",
      },
      coordinates: {
        type: "boolean",
        default: false,
        description: "2D coordinates in the CML.",
      },
    },
    required: ["smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      task: { type: "string", enum: [...TASKS], description: "The task asked for." },
      format: { type: "string", enum: ["moljson", "inchi", "cml", "canonical_smiles"], description: "The format chosen for the task." },
      representation: { type: "string", description: "The molecule in that format (MolJSON as a JSON string)." },
      reason: { type: "string", description: "Why this format suits the task." },
      representations: {
        type: "object",
        description: "The formats requested with `formats`; a null value could not be produced (see notes).",
        properties: {
          canonical_smiles: { type: "string", description: "RDKit canonical isomeric SMILES." },
          inchi: nullable({ type: "string" }, "Standard InChI."),
          inchikey: nullable({ type: "string" }, "Standard InChIKey."),
          moljson: nullable(MOLJSON_SCHEMA, "MolJSON object (see smiles_to_moljson)."),
          cml: nullable({ type: "string" }, "CML document."),
          molblock: nullable({ type: "string" }, "MDL molfile with RDKit 2D coordinates."),
        },
        additionalProperties: false,
      },
      notes: { type: "array", items: { type: "string" }, description: "Why a representation is missing, reduced or replaced." },
    },
    required: ["task", "format", "representation", "reason"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 30_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles, task = "default", formats = [], coordinates = false }, { rdkit }) {
    return withMol(rdkit, smiles, (mol) => {
      const extra = new Set<Format>(formats.includes("all") ? FORMATS : (formats as Format[]));
      const routed = TASK_FORMATS[task];
      const wanted = new Set<Format>(extra);
      wanted.add(routed.format);
      const { values, notes } = computeRepresentations(rdkit, mol, wanted, { coordinates });

      let format: string = routed.format;
      let representation: string | null;
      let reason = routed.reason;
      if (routed.format === "moljson") representation = values.moljson ? JSON.stringify(values.moljson) : null;
      else if (routed.format === "canonical_smiles") representation = values.canonical_smiles ?? null;
      else representation = values[routed.format] ?? null;
      if (representation === null) {
        format = "canonical_smiles";
        representation = values.canonical_smiles ?? mol.get_smiles();
        reason = `${routed.format} is not available for this molecule, so canonical SMILES is returned instead.`;
      }

      const out: Record<string, unknown> = { task, format, representation, reason };
      if (extra.size > 0) {
        const reps: Record<string, unknown> = {};
        for (const f of FORMATS) if (extra.has(f)) reps[f] = values[f] ?? null;
        out.representations = reps;
      }
      // The reply carries this object twice (text block and structuredContent) under the 1 MiB response limit:
      // drop the largest extra representations until it fits.
      const reps = out.representations as Record<string, unknown> | undefined;
      if (reps) {
        const size = () => Buffer.byteLength(JSON.stringify(out), "utf8");
        for (const f of ["molblock", "cml", "moljson"] as const) {
          if (size() <= REPLY_BUDGET_BYTES) break;
          if (reps[f] === undefined || reps[f] === null) continue;
          reps[f] = null;
          notes.push(`${f} was left out so the reply stays under the 1 MiB response limit; ask for it alone.`);
        }
      }
      if (notes.length > 0) out.notes = notes;
      return out;
    });
  },
};

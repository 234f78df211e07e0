import { boiledEggPayload, polarGraphInfo } from "../domain/chem/boiled_egg.js";
import { descriptorsOf } from "../domain/chem/rdkit.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL } from "./common.js";
import { MOLECULE_NOTES_PROPERTIES, SMILES_PARENT_INPUT, withInputMolecule, type SmilesParentArgs } from "./molecule-input.js";

const ellipseSchema = (what: string) => ({
  type: "object",
  description: what,
  properties: {
    center_tpsa: { type: "number", description: "Centre, TPSA (Å²)." },
    center_wlogp: { type: "number", description: "Centre, WLOGP." },
    axis_tpsa: { type: "number", description: "Full axis length along TPSA before rotation." },
    axis_wlogp: { type: "number", description: "Full axis length along WLOGP before rotation." },
    angle_deg: { type: "number", description: "Rotation in degrees, counter-clockwise positive, in data units." },
  },
  required: ["center_tpsa", "center_wlogp", "axis_tpsa", "axis_wlogp", "angle_deg"],
  additionalProperties: false,
});

export const boiledEggTool: ChemTool<SmilesParentArgs> = {
  kind: "chem",
  toolset: "chem",
  name: "boiled_egg",
  title: "BOILED-Egg GI absorption and brain penetration",
  description:
    "BOILED-Egg (Daina 2016, as SwissADME): passive GI absorption and brain penetration from WLOGP and TPSA, with the zone (yolk, white, grey) and the distance to each ellipse.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: SMILES_PARENT_INPUT,
  outputSchema: {
    type: "object",
    properties: {
      gi_absorbed: { type: "boolean", description: "Inside the white ellipse: high probability of passive GI absorption." },
      bbb_penetrant: { type: "boolean", description: "Inside the yolk ellipse: high probability of passive brain penetration." },
      zone: { type: "string", enum: ["yolk", "white", "grey"], description: "yolk (BBB), white (GI only) or grey (neither)." },
      logp: { type: "number", description: "Wildman-Crippen logP (WLOGP), 3 dp; the model's y axis." },
      tpsa: { type: "number", description: "TPSA from N and O (as calc_properties), Å², 2 dp." },
      tpsa_sp: { type: "number", description: "TPSA including polar S and P (SwissADME's TPSA), Å², 2 dp; the model's x axis." },
      method: { type: "string", description: "Model name." },
      white_distance: { type: "number", minimum: 0, description: "Normalised squared distance to the white ellipse (<= 1 inside), 3 dp." },
      yolk_distance: { type: "number", minimum: 0, description: "Normalised squared distance to the yolk ellipse (<= 1 inside), 3 dp." },
      thresholds: {
        type: "object",
        description: "The ellipses used, their plane, convention and source.",
        properties: {
          plane: { type: "string", description: "Axes of the plane." },
          gi_white: ellipseSchema("White (GI absorption) ellipse."),
          bbb_yolk: ellipseSchema("Yolk (BBB) ellipse."),
          convention: { type: "string", description: "How to read the parameters." },
          source: { type: "string", description: "Where the parameters come from." },
        },
        required: ["plane", "gi_white", "bbb_yolk", "convention", "source"],
        additionalProperties: false,
      },
      pgp: { type: "string", description: "P-glycoprotein: not modelled, and why." },
      citation: { type: "string", description: "The paper." },
      note: { type: "string", description: "What the estimate is and is not." },
      ...MOLECULE_NOTES_PROPERTIES,
    },
    required: ["gi_absorbed", "bbb_penetrant", "zone", "logp", "tpsa", "tpsa_sp", "method", "thresholds"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 10_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles, parent }, { rdkit }) {
    return withInputMolecule(rdkit, smiles, parent, (mol) => {
      const d = descriptorsOf(mol);
      const polar = polarGraphInfo(mol);
      return boiledEggPayload({ logp: d.CrippenClogP, tpsa: d.tpsa, tpsaSP: d.tpsa + polar.sulfurPhosphorusPsa });
    });
  },
};

import {
  DEFAULT_MORGAN_OPTIONS,
  MAX_MORGAN_RADIUS,
  MORGAN_N_BITS,
  fingerprintHex,
  fingerprintWords,
  morganBitVector,
  onBits,
  popcount,
} from "../domain/chem/morgan.js";
import type { MorganOptions } from "../domain/chem/morgan.js";
import { withMol } from "../domain/chem/rdkit.js";
import type { JsonSchema } from "../contract/tool.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

/** Morgan options as tool arguments (snake_case, like every argument of this server). */
export interface MorganArgs {
  radius?: number;
  n_bits?: number;
  use_chirality?: boolean;
}

/** Input-schema properties of the Morgan options, shared with tanimoto. */
export function morganOptionProperties(withChirality: boolean): Record<string, JsonSchema> {
  const props: Record<string, JsonSchema> = {
    radius: {
      type: "integer",
      minimum: 0,
      maximum: MAX_MORGAN_RADIUS,
      default: DEFAULT_MORGAN_OPTIONS.radius,
      description: "Morgan radius: 2 = ECFP4, 3 = ECFP6.",
    },
    n_bits: {
      type: "integer",
      enum: [...MORGAN_N_BITS],
      default: DEFAULT_MORGAN_OPTIONS.nBits,
      description: "Bits: a power of two, 64 to 16384.",
    },
  };
  if (withChirality) {
    props.use_chirality = {
      type: "boolean",
      default: DEFAULT_MORGAN_OPTIONS.useChirality,
      description: "Include R/S in atom environments.",
    };
  }
  return props;
}

export function morganOptionsOf(args: MorganArgs): MorganOptions {
  return {
    radius: args.radius ?? DEFAULT_MORGAN_OPTIONS.radius,
    nBits: args.n_bits ?? DEFAULT_MORGAN_OPTIONS.nBits,
    useChirality: args.use_chirality ?? DEFAULT_MORGAN_OPTIONS.useChirality,
  };
}

interface Args extends MorganArgs {
  smiles: string;
}

export const ecfp4Tool: ChemTool<Args> = {
  kind: "chem",
  toolset: "chem",
  name: "ecfp4",
  title: "ECFP4 (Morgan) fingerprint",
  description:
    "ECFP4 (Morgan) fingerprint, bit-identical to RDKit: bits as hex, popcount and on bits, to store or feed a model. To compare molecules use tanimoto.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: { smiles: smilesProperty(), ...morganOptionProperties(true) },
    required: ["smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      fingerprint: {
        type: "string",
        pattern: "^[0-9a-f]*$",
        description:
          "Lowercase hex, n_bits/4 characters: bit i is in byte i>>3 (hex digits 2*(i>>3) and 2*(i>>3)+1), at position i&7 with the lowest bit first.",
      },
      popcount: { type: "integer", minimum: 0, description: "Number of set bits." },
      on_bits: { type: "array", items: { type: "integer", minimum: 0 }, description: "Indices of the set bits, ascending." },
      radius: { type: "integer", minimum: 0, description: "Radius used." },
      n_bits: { type: "integer", minimum: 64, description: "Length in bits." },
      use_chirality: { type: "boolean", description: "Whether chirality was included." },
      method: { type: "string", description: "What was computed." },
    },
    required: ["fingerprint", "popcount", "on_bits", "radius", "n_bits", "use_chirality"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 10_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run(args, { rdkit }) {
    const options = morganOptionsOf(args);
    return withMol(rdkit, args.smiles, (mol) => {
      const bytes = morganBitVector(mol, options);
      return {
        fingerprint: fingerprintHex(bytes),
        popcount: popcount(fingerprintWords(bytes)),
        on_bits: onBits(bytes),
        radius: options.radius,
        n_bits: options.nBits,
        use_chirality: options.useChirality,
        method: `RDKit Morgan fingerprint (radius ${options.radius}, ${options.nBits} bits${options.useChirality ? ", with chirality" : ""}), as GetMorganFingerprintAsBitVect`,
      };
    });
  },
};

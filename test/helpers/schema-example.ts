/** Builds tool arguments from a tool's input schema, for tests that call every tool without knowing it. */

type Schema = Record<string, unknown>;

/** A plausible value for a schema: its example, default, const or first enum value, else one by type and name. */
export function exampleFor(schema: Schema, name: string): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const variants = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (variants?.[0]) {
    // An alternative that only names required keys (smiles or smiles_list) applies to the schema around it.
    const { oneOf: _oneOf, anyOf: _anyOf, ...rest } = schema;
    const first = variants[0];
    if (first.type !== undefined || rest.type === undefined) return exampleFor(first, name);
    return exampleFor({ ...rest, ...first, required: [...((rest.required ?? []) as string[]), ...((first.required ?? []) as string[])] }, name);
  }
  switch (schema.type) {
    case "string":
      if (/smarts/i.test(name)) return "[OX2H]";
      if (/smiles/i.test(name)) return "CC(=O)Oc1ccccc1C(=O)O";
      if (/chembl/i.test(name)) return "CHEMBL25";
      return "aspirin";
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return false;
    case "array": {
      const molecules = ["c1ccccc1O", "c1ccccc1N", "CC(=O)O", "CCO"];
      const n = Math.max(1, (schema.minItems as number | undefined) ?? 1);
      return Array.from({ length: n }, (_, i) => {
        const item = exampleFor((schema.items as Schema | undefined) ?? { type: "string" }, name);
        return typeof item === "string" && /smiles/i.test(name) ? molecules[i % molecules.length] : item;
      });
    }
    case "object":
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((key) => [key, exampleFor(properties[key] ?? {}, key)]));
    }
  }
}

// Lint rules: typescript-eslint's type-checked recommended set on the TypeScript (floating and misused
// promises among them), plus the one rule that guards the protocol channel: nothing but the transport
// may write to stdout, so console.log is banned everywhere; and the layers of src/, which import one way
// (eslint.layers.js).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { layerRules } from "./eslint.layers.js";

export default tseslint.config(
  { ignores: ["build/**", "node_modules/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Off: many functions are async because their contract is (ServiceTool.run, ResourceProvider.read,
      // doctor's checks, test fixtures) and need not await anything themselves.
      "@typescript-eslint/require-await": "off",
      // Off: it flags String() of values typed unknown that are primitives by construction (DuckDB cells,
      // parsed JSON fields), where String() is the intended conversion.
      "@typescript-eslint/no-base-to-string": "off",
      // node:test's test() and describe() return promises the runner itself awaits.
      "@typescript-eslint/no-floating-promises": [
        "error",
        { allowForKnownSafeCalls: [{ from: "package", package: "node:test", name: ["test", "describe", "it", "suite", "before", "after"] }] },
      ],
    },
  },
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly" } },
    rules: {
      "no-console": ["error", { allow: ["error", "warn"] }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  ...layerRules,
  {
    files: ["test/**/*.ts", "bench/**/*.ts", "scripts/**/*.{js,mjs,ts}"],
    rules: { "no-console": "off" },
  },
  {
    // Tests read parsed JSON answers and error reasons loosely typed, on purpose.
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/restrict-template-expressions": "off",
      "@typescript-eslint/prefer-promise-reject-errors": "off",
    },
  },
);

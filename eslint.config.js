// Lint rules: typescript-eslint's recommended set, plus the one rule that guards the protocol
// channel: nothing but the transport may write to stdout, so console.log is banned everywhere; and the
// layers of src/, which import one way (eslint.layers.js).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { layerRules } from "./eslint.layers.js";

export default tseslint.config(
  { ignores: ["build/**", "node_modules/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
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
);

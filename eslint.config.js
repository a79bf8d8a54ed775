import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "generated/", ".data/", ".scratch/", "dist/", "web/dist/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Unused names prefixed with `_` are intentional (destructuring away a field, unused handler arguments).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      // Payloads from providers and pg-boss are untyped JSON; `any` is confined to those edges.
      "@typescript-eslint/no-explicit-any": "off",
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message: "Read configuration through src/config.ts (docs/operations.md#environment-variables).",
        },
      ],
    },
  },
  {
    // Test harness and tooling may read the environment (e.g. DATABASE_URL for the test Postgres).
    files: ["test/**", "scripts/**", "bench/**", "src/config.ts", "knexfile.ts"],
    rules: { "no-restricted-properties": "off" },
  },
  {
    // The web app renders competitors' text as text only (README: Web app): no HTML from data, ever.
    files: ["web/src/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
          message: "Render text as text: data from the API (competitors' pages) is hostile.",
        },
        {
          selector: "MemberExpression[property.name=/^(innerHTML|outerHTML)$/]",
          message: "Render text as text: data from the API (competitors' pages) is hostile.",
        },
        {
          selector: "CallExpression[callee.property.name='insertAdjacentHTML']",
          message: "Render text as text: data from the API (competitors' pages) is hostile.",
        },
      ],
    },
  },
);

// Lint: ESLint's recommended rules plus typescript-eslint's (syntax-only, fast), over every package and app.
import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  // packages/*/wasm/*.ts are AssemblyScript (decorators on functions, v128 types), compiled by asc and checked by their
  // packages' parity tests, not TypeScript
  { ignores: ["**/dist/**", "**/out-tsc/**", "**/node_modules/**", "**/.nx/**", "runs/**", "tmp/**", "packages/*/wasm/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", globalThis: "readonly" } },
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-namespace": "off",
      "no-constant-condition": ["error", { checkLoops: false }],
      "@typescript-eslint/no-empty-object-type": ["error", { allowInterfaces: "with-single-extends" }]
    }
  },
  {
    // CommonJS configuration files (dependency-cruiser reads `.cjs`)
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { require: "readonly", module: "writable" } },
    rules: { "@typescript-eslint/no-require-imports": "off" }
  }
)

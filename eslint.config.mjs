// ESLint (flat config): typescript-eslint's recommended rules over every TypeScript and script file we write.
// Formatting is Prettier's job (.prettierrc.json); `npm run lint` runs both checks.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'out/', 'node_modules/', '.vscode-test/', 'test/fixtures/', '*.vsix'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused names are the compiler's job (noUnusedLocals/noUnusedParameters); a leading _ marks one kept on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Control characters in regular expressions are how terminal colour codes are matched.
      'no-control-regex': 'off',
    },
  },
  { files: ['src/webview/**/*.ts'], languageOptions: { globals: { ...globals.browser } } },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read untyped JSON reports and pass functions to Playwright's page.evaluate (run in the page, no DOM lib).
      '@typescript-eslint/no-explicit-any': 'off',
      // Formatted SQL's two-space indentation reads best in a pattern as it is printed.
      'no-regex-spaces': 'off',
    },
  },
  // Optional packages (the local embedding model), required at run time only where installed, never bundled.
  { files: ['src/core/embeddings/localModel.ts'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  { files: ['**/*.cjs', 'esbuild.js', 'bin/*.js'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);

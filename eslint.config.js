import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Imports that would cross from one half of the kit into the other (see docs/architecture in the README). */
const boundary = (message, ...groups) => ['error', { patterns: [{ group: groups, message }] }];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'bench-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  // Rules that need the types, for the TypeScript files: a promise nobody awaits loses its error
  // (an unhandled rejection ends the process), and a promise where a callback's result is ignored
  // (an Express handler, an event listener) is never awaited by its caller either.
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // Plain JavaScript (this file, the build's copy script) is linted without type information.
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], ...tseslint.configs.disableTypeChecked },
  // The scripts pages load from their assets run in the browser.
  { files: ['views/**/assets/*.js'], languageOptions: { globals: { ...globals.browser } } },
  // The boundaries `ls src` shows: the partner is deployed without the mock; the mock stands for the
  // platform and knows the partner only through the contract; the shared library and the contract
  // belong to neither half; the conformance checker knows the partner only over HTTP.
  {
    files: ['src/partner/**'],
    rules: {
      'no-restricted-imports': boundary(
        'The partner is deployed without the mock platform (nor the conformance checker, which starts it).',
        '**/mock-platform/**',
        '**/conformance/**',
      ),
    },
  },
  // The demo is a provider like any other: the kit reaches it only through the Provider seam, and
  // only the shipped entry point (src/partner/server.ts) chooses it — so a fork replaces it there,
  // and the kit builds and runs without it. (One rule per file: this one repeats the boundary above.)
  {
    files: ['src/partner/**', 'scripts/accounts.ts', 'scripts/register-partner.ts'],
    ignores: ['src/partner/server.ts', 'src/partner/provider/demo/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/mock-platform/**', '**/conformance/**'],
              message: 'The partner is deployed without the mock platform (nor the conformance checker, which starts it).',
            },
            {
              group: ['**/provider/demo', '**/provider/demo/**'],
              message: 'Only the shipped entry point (src/partner/server.ts) chooses the demo provider; the kit knows providers through provider/types.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/mock-platform/**'],
    rules: {
      'no-restricted-imports': boundary(
        'The mock platform uses src/contract and src/lib only, never partner code (nor the conformance checker).',
        '**/partner/**',
        '**/conformance/**',
      ),
    },
  },
  {
    files: ['src/lib/**', 'src/contract/**'],
    rules: {
      'no-restricted-imports': boundary(
        'src/lib and src/contract are shared: they import neither half, nor the conformance checker.',
        '**/partner/**',
        '**/mock-platform/**',
        '**/conformance/**',
      ),
    },
  },
  // The conformance checker is a third tool: it drives any partner over HTTP with the contract's
  // own calling code, so it never imports partner code; of the mock it uses only what starts it
  // (server.ts) and the seeded world it drives (seed.ts), for --platform.
  {
    files: ['src/conformance/**'],
    rules: {
      'no-restricted-imports': boundary(
        'The conformance checker uses src/contract and src/lib, and of the mock platform only server.ts and seed.ts; never partner code.',
        '**/partner/**',
        '**/mock-platform/**',
        '!**/mock-platform/server.js',
        '!**/mock-platform/seed.js',
      ),
    },
  },
  {
    // Command-line tools print; the benchmark's baseline prints "listening <port>" for scripts/bench.ts.
    files: ['scripts/**', 'test/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
);

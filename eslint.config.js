import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Imports that would cross from one half of the kit into the other (see docs/architecture in the README). */
const boundary = (message, ...groups) => ['error', { patterns: [{ group: groups, message }] }];
/** Several boundaries in one rule (a later rule for the same files replaces an earlier one). */
const boundaries = (...rules) => ['error', { patterns: rules.map(([message, groups]) => ({ group: groups, message })) }];

const PARTNER_ONLY = 'The partner is deployed without the mock platform (nor the conformance checker, which starts it, nor the test harness).';
const NOT_IN_PARTNER = ['**/mock-platform/**', '**/conformance/**', '**/testing/**'];

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
    rules: { 'no-restricted-imports': boundary(PARTNER_ONLY, ...NOT_IN_PARTNER) },
  },
  // The platforms: each is one folder of src/partner/platforms/, everything it adds in one
  // definition (its settings, tables, routes, API operations, delivery, workers). No module of the
  // core imports a platform's folder — not the settings, not the API document, not the wiring: it
  // knows a platform through platforms/platform.ts (the seam) and is given the definitions of
  // platforms/index.ts (the registry, one line a platform). And a platform never imports another.
  {
    files: ['src/partner/**'],
    ignores: ['src/partner/platforms/**'],
    rules: {
      'no-restricted-imports': boundaries(
        [PARTNER_ONLY, NOT_IN_PARTNER],
        [
          'The core knows no platform: it reaches one through platforms/platform.ts, and is given them by the registry, platforms/index.ts (docs/platforms.md).',
          ['**/platforms/*/**'],
        ],
      ),
    },
  },
  // At each depth of a platform's folder, an import that climbs to platforms/ and down again names
  // another platform: `../greenhouse/…` from its top, `../../greenhouse/…` one folder down.
  ...[1, 2, 3, 4].map((depth) => ({
    files: [`src/partner/platforms/*/${'*/'.repeat(depth - 1)}${depth === 4 ? '**/' : ''}*`],
    rules: {
      'no-restricted-imports': boundaries(
        [PARTNER_ONLY, NOT_IN_PARTNER],
        [
          "A platform's folder imports the core and its own files, never another platform (docs/platforms.md).",
          [`${'../'.repeat(depth)}*/**`, `!${'../'.repeat(depth + 1)}**`, '**/platforms/*/**'],
        ],
      ),
    },
  })),
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
  // The provider's boundary, a second rule beside the halves' (typescript-eslint's copy of the same
  // rule, so neither replaces the other): src/provider/ is the vendor's folder. It chooses the
  // provider — only it, and the public entry that re-exports the demo, name the demo; the kit knows
  // providers through provider/types.ts and loads the vendor's through provider/module.ts. The
  // benchmark measures the kit itself on the demo's tables, whatever a fork's provider is.
  {
    files: ['src/**', 'scripts/**'],
    ignores: ['src/provider/**', 'src/partner/index.ts', 'src/partner/provider/demo/**', 'scripts/bench.ts', 'scripts/bench-mail.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/provider/demo', '**/provider/demo/**'],
              message: 'Only the vendor\'s folder (src/provider/) chooses the demo provider, through the public entry; the kit knows providers through provider/types.ts.',
            },
          ],
        },
      ],
    },
  },
  // And the vendor's folder imports nothing of the kit but its public entry (src/partner/index.ts),
  // so an upgrade of the kit cannot break it elsewhere; its tests (*.test.ts) the test harness
  // (src/testing/index.ts) too, which is not deployed. At each depth of the folder (six deep), an
  // import that climbs out of it must name one of them.
  ...[1, 2, 3, 4, 5, 6].flatMap((depth) =>
    [false, true].map((tests) => ({
      files: [`src/provider/${'*/'.repeat(depth - 1)}${depth === 6 ? '**/' : ''}${tests ? '*.test.ts' : '*'}`],
      ...(!tests && { ignores: ['**/*.test.ts'] }),
      rules: {
        '@typescript-eslint/no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: `^(\\./)?(\\.\\./){${depth}}(?!${tests ? '(partner|testing)' : 'partner'}/index\\.js$)`,
                message: tests
                  ? "src/provider/'s tests import the kit through its public entry (../partner/index.js) and its test harness (../testing/index.js) only."
                  : "src/provider/ imports the kit through its public entry (../partner/index.js) only (its tests, the test harness too).",
              },
            ],
          },
        ],
      },
    })),
  ),
  {
    // Command-line tools print; the benchmark's baseline prints "listening <port>" for scripts/bench.ts.
    files: ['scripts/**', 'test/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
);

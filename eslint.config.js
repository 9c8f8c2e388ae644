import fs from 'node:fs';
import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import react from 'eslint-plugin-react';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import noImportCycles from './eslint-rules/no-import-cycles.js';

// Layout and boundaries (docs/architecture.md §3, docs/decisions/0022-feature-boundaries-enforced-by-lint.md).
const BOUNDARIES = 'docs/architecture.md §3';

/** Every folder under `dir`: each feature gets its own zone, so a new feature is covered at once. */
const foldersIn = (dir) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

/** A feature imports its own files and the places made for sharing, never another feature's. */
const featureZones = (root, shared) =>
  foldersIn(root).map((feature) => ({
    target: `./${root}/${feature}`,
    from: `./${root}`,
    except: [`./${feature}`],
    message: `A feature never imports another feature: move what several share to ${shared} (${BOUNDARIES}).`,
  }));

const boundaryZones = [
  ...featureZones('src/server/features', 'a shared server module such as src/server/accounts'),
  ...featureZones('src/web/features', 'src/web/lib or src/web/components'),
  {
    // app.ts composes every feature; only main.ts (and tests and benchmarks, outside src) start it.
    target: [
      './src/server/!(main).ts',
      './src/server/*/**',
      './src/web/**',
      './src/shared/**',
      './scripts/**',
    ],
    from: './src/server/app.ts',
    message: `Only src/server/main.ts imports app.ts; the dependency types live in src/server/app-deps.ts (${BOUNDARIES}).`,
  },
  {
    // Below the features: accounts, http, mail, db, housekeeping and the entry points other than app.ts.
    target: ['./src/server/!(features)/**', './src/server/!(app).ts'],
    from: './src/server/features',
    message: `Only app.ts knows the features; shared server code never imports one (${BOUNDARIES}).`,
  },
  {
    target: ['./src/web/lib', './src/web/components'],
    from: './src/web/features',
    message: `src/web/lib and src/web/components serve the features and never import one (${BOUNDARIES}).`,
  },
  {
    target: './src/web',
    from: './src/server',
    message: `The web app never imports server code; what both need lives in src/shared (${BOUNDARIES}).`,
  },
  {
    target: './src/server',
    from: './src/web',
    message: `The server never imports web code; what both need lives in src/shared (${BOUNDARIES}).`,
  },
  {
    target: './src/shared/**/!(*.test).ts',
    from: '.',
    except: ['./src/shared', './node_modules/zod'],
    message: `src/shared is the contract of web and server: it imports only zod and itself (${BOUNDARIES}).`,
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'data/**', 'node_modules/**', 'coverage/**', 'src/web/public/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: {
      import: importPlugin,
      react,
      'react-hooks': reactHooks,
      local: { rules: { 'no-import-cycles': noImportCycles } },
    },
    settings: {
      react: { version: '19' },
      'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs'] } },
    },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      // User HTML is only ever shown in sandboxed frames (docs/architecture.md §1.7).
      'react/iframe-missing-sandbox': 'error',
      'react/jsx-no-target-blank': 'error',
      // Replaces import/no-cycle, which skips `import type` (eslint-rules/no-import-cycles.js).
      'local/no-import-cycles': 'error',
      'import/no-restricted-paths': ['error', { zones: boundaryZones }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through src/server/config.ts (docs/architecture.md §4).',
        },
      ],
    },
  },
  {
    // Packages and Node built-ins are not resolved to files above; this catches them by name.
    files: ['src/shared/**'],
    ignores: ['src/shared/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!zod$|\\.{1,2}/)',
              message: `src/shared is the contract of web and server: it imports only zod and itself (${BOUNDARIES}).`,
            },
          ],
        },
      ],
    },
  },
  {
    // The config module is the one reader of process.env; tooling and tests may set it.
    files: [
      'src/server/config.ts',
      'src/server/config.test.ts', // sets up the environment loadEnvFile reads
      'scripts/**',
      'bin/**', // the CLI reads PROOFMAIL_URL and PROOFMAIL_API_KEY (docs/decisions/0075-cli.md)
      'tests/**',
      'bench/**',
      'src/server/db/embedded-postgres.ts',
      '*.config.*',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // Removing a page's last route can leave a request paused for good
    // (docs/decisions/0097-routes-stay-registered.md); tests/support/routes.ts switches one off.
    files: ['tests/**'],
    ignores: ['tests/support/routes.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^unroute(All)?$/]',
          message: 'Do not remove routes: switch one off with intercept() (tests/support/routes.ts).',
        },
        {
          selector:
            "CallExpression[callee.property.name='route'] > ObjectExpression > Property[key.name='times']",
          message:
            'A route with `times` removes itself: use intercept(…, { times }) (tests/support/routes.ts).',
        },
      ],
    },
  },
);

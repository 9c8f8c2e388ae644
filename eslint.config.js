import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import react from 'eslint-plugin-react';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'data/**', 'node_modules/**', 'coverage/**', 'src/web/public/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { import: importPlugin, react, 'react-hooks': reactHooks },
    settings: {
      react: { version: '19' },
      'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs'] } },
    },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      // User HTML is only ever shown in sandboxed frames (guide §1.7).
      'react/iframe-missing-sandbox': 'error',
      'react/jsx-no-target-blank': 'error',
      'import/no-cycle': ['error', { maxDepth: 10 }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through src/server/config.ts (guide §4).',
        },
      ],
    },
  },
  {
    // The config module is the one reader of process.env; tooling and tests may set it.
    files: ['src/server/config.ts', 'scripts/**', 'tests/**', 'bench/**', 'src/server/db/embedded-postgres.ts', '*.config.*'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);

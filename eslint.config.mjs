// Lint: no floating promises anywhere; workflow code may not import Node builtins or activities'
// implementations (only their types), because it must stay deterministic; the public contract
// (src/contract) uses only the domain, and the domain no other layer; the environment is read in
// src/config alone, once, into the typed config that is passed down.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.venv/**', 'bin/**', '*.config.*'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/config/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'The environment is read in src/config alone (loadConfig): take the setting from the typed config.' },
        { selector: "TSQualifiedName[left.name='NodeJS'][right.name='ProcessEnv']", message: 'A raw environment travels nowhere: pass the typed config (src/config) instead.' },
      ],
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['fs', 'path', 'os', 'crypto', 'http', 'https', 'net', 'child_process', 'worker_threads', 'stream', 'url', 'util', 'events', 'timers'].map(
            (name) => ({ name, message: 'Workflow code must not use Node builtins.' }),
          ),
          patterns: [
            { group: ['node:*'], message: 'Workflow code must not use Node builtins.' },
            { group: ['**/activities/*', '!**/activities/contracts'], message: 'Import activity types only (../activities/contracts).', allowTypeImports: true },
            { group: ['zod', '@temporalio/worker', '@temporalio/client', '@temporalio/activity'], message: 'Not in workflow code.' },
            { group: ['**/domain/settings'], message: 'The settings schema is zod: import its types only.', allowTypeImports: true },
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['src/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['../*', '!../domain'], message: 'The contract uses only the domain: workflows, clients, the server and the worker all use it.' },
            { group: ['node:*', 'zod', '@temporalio/*', '!@temporalio/workflow'], message: 'The contract stays light enough for workflow code.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*', '@temporalio/*', 'node:*'], message: 'The domain uses no other layer: every layer may use it.' }] },
      ],
    },
  },
);

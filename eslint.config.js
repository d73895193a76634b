// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

/** Workflow and policy code runs in Temporal's deterministic sandbox (or is pure): no Node, no side effects. */
const sandboxBan = {
  'no-restricted-imports': [
    'error',
    {
      paths: [
        ...nodeBuiltins.map((name) => ({
          name,
          message: 'Node built-ins are not allowed in workflows/ or policy/.',
        })),
        ...['@temporalio/activity', '@temporalio/worker', '@temporalio/client', '@temporalio/testing'].map(
          (name) => ({ name, message: 'Only @temporalio/workflow (and common) may be imported here.' }),
        ),
      ],
      patterns: [
        { group: ['node:*'], message: 'Node built-ins are not allowed in workflows/ or policy/.' },
        {
          group: ['@temporalio/activity/*', '@temporalio/worker/*', '@temporalio/client/*'],
          message: 'Not workflow-safe.',
        },
      ],
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'bench/results/**', 'coverage/**', 'docs/api/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } },
  },
  {
    files: [
      'workflows/**/*.ts',
      'policy/**/*.ts',
      'test/harness/bundle/**/*.ts',
      'test/harness/floor/workflows.ts',
    ],
    rules: sandboxBan,
  },
  {
    files: ['policy/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@temporalio/*'], message: 'policy/ knows nothing of Temporal.' },
            { group: ['node:*', ...nodeBuiltins], message: 'policy/ is pure: no Node built-ins.' },
            { group: ['../*', '!../policy/*'], message: 'policy/ imports nothing outside itself.' },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: 'policy/ has no clock: take `now` as an argument.' },
        { name: 'setTimeout', message: 'policy/ has no timers.' },
        { name: 'fetch', message: 'policy/ does no I/O.' },
        { name: 'process', message: 'policy/ does not read the environment.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Inject the random source.' },
      ],
    },
  },
);

import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      '**/dist/',
      'node_modules/',
      'coverage/',
      'records/',
      '.tmp/',
      '**/jest.config.js',
      'test/summary-reporter.js',
      // Plain Node inside the fresh-machine container, before any install (scripts/fresh-check.sh).
      'scripts/fresh-check/take-ports.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  prettier,
  {
    // Type-aware rules: a promise nobody awaits or catches, or one passed where a callback's
    // result is ignored (an Express handler, an event listener), loses its rejection silently.
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // The product ships without the sandbox (packages/sandbox): it may never import it. It uses
    // the API client (packages/client) by its package name only, never its files.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@svcws/sandbox', '**/packages/**'],
              message: "src/ never imports the sandbox; the client only as '@svcws/client'.",
            },
          ],
        },
      ],
    },
  },
  {
    // The sandbox sees the product through its public entry only.
    files: ['packages/sandbox/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/src/**'], message: "import the product from 'svcws-listener'." },
          ],
        },
      ],
    },
  },
  {
    // The API client installs alone (packages/client/README.md): it may import neither the product,
    // nor the sandbox, nor a server-side library.
    files: ['packages/client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['svcws-listener', '@svcws/sandbox', '**/packages/**', '../../**'],
              message: 'the client imports only its own files and its dependencies.',
            },
            {
              group: [
                'express',
                'bullmq',
                'ioredis',
                'pino',
                'nats',
                'rabbitmq-client',
                'prom-client',
              ],
              message:
                'the client depends on no server-side library (packages/client/package.json).',
            },
          ],
        },
      ],
    },
  },
);

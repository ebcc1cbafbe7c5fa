// The product's tests and the sandbox package's tests run together (`npm test` from the root);
// reporters, timeout and workers are run-wide, so the closing summary line counts both.
const product = {
  displayName: 'product',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  // The suites judged by their answers under a steady load run alone (test/helpers/load-lane.ts).
  setupFilesAfterEnv: ['<rootDir>/test/helpers/load-lane-setup.ts'],
  // Same names as tsconfig.json's `paths`: both packages resolve from source, no build needed.
  moduleNameMapper: {
    '^svcws-listener$': '<rootDir>/src/index.ts',
    '^@svcws/sandbox$': '<rootDir>/packages/sandbox/src/index.ts',
    '^@svcws/client$': '<rootDir>/packages/client/src/index.ts',
  },
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [product, '<rootDir>/packages/sandbox', '<rootDir>/packages/client'],
  // Starts the private servers the tests use (test/services) and hands their addresses over.
  globalSetup: '<rootDir>/test/services/global-setup.ts',
  globalTeardown: '<rootDir>/test/services/global-teardown.ts',
  // A deadline, not a clock: generous, so a run beside a busy machine (a test that starts
  // processes, compiles with tsx) ends by its conditions, not by this.
  testTimeout: 300_000,
  // Two cores on the CI machine; Redis-backed suites each use their own queue names.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};

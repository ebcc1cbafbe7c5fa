// Run from the repository root's jest.config.js (a project of it), or alone: `npm test -w @svcws/sandbox`.
/** @type {import('jest').Config} */
module.exports = {
  displayName: 'sandbox',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  // Same name as tsconfig.json's `paths`: the product's public entry, from source.
  moduleNameMapper: {
    '^svcws-listener$': '<rootDir>/../../src/index.ts',
    '^@svcws/client$': '<rootDir>/../client/src/index.ts',
  },
  // Their turn beside the product's suites: none runs beside one that must run alone
  // (test/helpers/load-lane.ts; outside the root's `npm test` it waits for nothing).
  setupFilesAfterEnv: ['<rootDir>/../../test/helpers/load-lane-setup.ts'],
  testTimeout: 30000,
};

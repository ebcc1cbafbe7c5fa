// Run from the repository root's jest.config.js (a project of it), or alone: `npm test -w @svcws/client`.
/** @type {import('jest').Config} */
module.exports = {
  displayName: 'client',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  testTimeout: 30000,
};

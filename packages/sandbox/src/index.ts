// The sandbox's one public entry: a local stand-in of the platform for development and tests.
export { createSandbox } from './create-sandbox';
export type { CreateSandboxOptions, RunningSandbox, Sandbox } from './create-sandbox';
export { SandboxConfig } from './sandbox-config';
export { platformAreas } from './areas';
export type { SandboxArea } from './sandbox-context';
export { createMarcStream } from './marc/marc-stream';

// for tests that run a client or a listener against the sandbox
export { startSandbox, TEST_API_KEY } from './testing/start-sandbox';
export type { Reply, SandboxUnderTest } from './testing/start-sandbox';
export { startSandboxProcess } from './testing/start-sandbox-process';
export type { SandboxProcess } from './testing/start-sandbox-process';

// The package's one public entry. Composition roots live in src/bin and are not exported.
export {
  ConfigError,
  loadConfig,
  WebConfig,
  WorkerConfig,
  ClientConfig,
  SandboxConfig,
} from './config';
export { createLogger } from './logger';
export type { Logger } from './logger';

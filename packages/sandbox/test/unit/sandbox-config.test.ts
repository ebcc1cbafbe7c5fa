import { ConfigError, EnvSchema, loadConfig } from 'svcws-listener';
import { SandboxConfig } from '../../src/sandbox-config';

describe('the sandbox configuration', () => {
  it('fails at start naming every bad SANDBOX_ key and never its value', () => {
    const env = { SANDBOX_SEED: '-1', SANDBOX_WEBHOOK_FORMAT: 'yaml-XYZ', SANDBOX_PORT: 'XYZ' };
    let caught: unknown;
    try {
      loadConfig(SandboxConfig, env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.keys.sort()).toEqual(['SANDBOX_PORT', 'SANDBOX_SEED', 'SANDBOX_WEBHOOK_FORMAT']);
    expect(error.message).not.toContain('XYZ');
  });

  it('holds every SANDBOX_ key with its default, and the product schema holds none', () => {
    const sandboxKeys = Object.keys(SandboxConfig.shape).filter((key) =>
      key.startsWith('SANDBOX_'),
    );
    expect(sandboxKeys).toHaveLength(13);
    expect(Object.keys(EnvSchema.shape).filter((key) => key.startsWith('SANDBOX_'))).toEqual([]);
    expect(loadConfig(SandboxConfig, {})).toMatchObject({
      SANDBOX_PORT: 8790,
      SANDBOX_API_KEYS: ['sandbox-key'],
      SANDBOX_WEBHOOK_FORMAT: 'json',
      SANDBOX_WEBHOOK_LOSE_ONE_IN: 0,
      LOG_LEVEL: 'info',
    });
  });
});

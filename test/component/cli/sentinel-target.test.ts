import { runCli } from '../../../src/cli/run-cli';
import { captureIo } from './cli-io-capture';

describe('queue commands through Sentinel', () => {
  it('name the sentinels they could not reach, never a password (exit 1)', async () => {
    const io = captureIo({
      REDIS_SENTINELS: '127.0.0.1:1',
      REDIS_SENTINEL_NAME: 'svc-primary',
      REDIS_SENTINEL_PASSWORD: 'hunter2',
      REDIS_PASSWORD: 'hunter3',
      QUEUE_NAME: 'x',
    });

    const status = await runCli(['failed'], io);

    expect(status).toBe(1);
    expect(io.stderr()).toContain('cannot reach Redis at sentinels 127.0.0.1:1 (REDIS_SENTINELS)');
    expect(io.stderr()).not.toMatch(/hunter[23]/);
  });

  it('refuse a sentinel list without the primary’s name', async () => {
    const io = captureIo({ REDIS_SENTINELS: '127.0.0.1:1', QUEUE_NAME: 'x' });

    expect(await runCli(['failed'], io)).toBe(1);
    expect(io.stderr()).toContain('REDIS_SENTINEL_NAME (required with REDIS_SENTINELS)');
  });
});

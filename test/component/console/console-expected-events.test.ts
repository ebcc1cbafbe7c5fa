import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ConsoleConfig, loadConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/console';
import { expectedLastKey, expectedSinceKey } from '../../../src/expected/expected-events-watch';
import { createConsoleProcess } from '../../../src/processes/console-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';

const TOKEN = 'viewer-token-of-the-expected-events-test';
const HOUR_MS = 3600_000;

describe('expected events on the console’s overview', () => {
  it('shows each rule with its last event, its age and whether it is late', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-console-expected-'));
    const queueName = uniqueQueueName('console-expected');
    await writeFile(
      join(dir, 'tokens.yaml'),
      `tokens:\n  - { name: reader, sha256: ${sha256Hex(TOKEN)}, role: viewer }\n`,
    );
    await writeFile(
      join(dir, 'expected.yaml'),
      'expected:\n  - { jobEnd: S7781, everyHours: 24 }\n  - { kind: loan, everyHours: 2 }\n',
    );
    const env = {
      QUEUE_NAME: queueName,
      CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
      EXPECTED_EVENTS_FILE: join(dir, 'expected.yaml'),
    };
    const connection = openProducerConnection(TEST_REDIS_URL);
    const consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: captureLogger().logger,
      connection,
      env,
    });
    try {
      if (connection.status !== 'ready') await once(connection, 'ready');
      // As the worker notes them (expected-events-watch.ts): the job ended an hour ago; no loan
      // came in the three hours the rule has been watched.
      const now = Date.now();
      await connection.hset(expectedLastKey(queueName), 'job_end:S7781', String(now - HOUR_MS));
      await connection.hset(expectedSinceKey(queueName), 'kind:loan', String(now - 3 * HOUR_MS));

      const answer = await request(consoleProcess.app)
        .get('/api/v1/overview')
        .set({ Authorization: `Bearer ${TOKEN}` })
        .expect(200);

      expect(answer.body.expected).toEqual([
        {
          institution: '',
          rule: 'job_end:S7781',
          everyHours: 24,
          lastSeenAt: new Date(now - HOUR_MS).toISOString(),
          ageSeconds: expect.any(Number) as number,
          late: false,
        },
        {
          institution: '',
          rule: 'kind:loan',
          everyHours: 2,
          lastSeenAt: null,
          ageSeconds: expect.any(Number) as number,
          late: true,
        },
      ]);
      expect(answer.body.expected[1].ageSeconds).toBeGreaterThanOrEqual(3 * 3600);
      const page = await request(consoleProcess.app)
        .get('/')
        .set({ Authorization: `Bearer ${TOKEN}` })
        .expect(200);
      expect(page.text).toMatch(/<td>kind:loan<\/td>[\s\S]*?<td class="down">late<\/td>/);
      expect(page.text).toContain('none since watched');
    } finally {
      await connection.del(expectedLastKey(queueName), expectedSinceKey(queueName));
      await consoleProcess.close();
      await closeRedis(connection);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

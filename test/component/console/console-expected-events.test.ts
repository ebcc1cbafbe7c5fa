import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { expectedLastKey, expectedSinceKey } from '../../../src/expected/expected-events-watch';
import { startConsoleOnRedis } from './support/console-on-redis';

const TOKEN = 'viewer-token-of-the-expected-events-test';
const HOUR_MS = 3600_000;

describe('expected events on the console’s overview', () => {
  it('shows each rule with its last event, its age and whether it is late', async () => {
    const running = await startConsoleOnRedis({
      name: 'console-expected',
      tokens: [{ name: 'reader', token: TOKEN, role: 'viewer' }],
      env: (dir) => {
        writeFileSync(
          join(dir, 'expected.yaml'),
          'expected:\n  - { jobEnd: S7781, everyHours: 24 }\n  - { kind: loan, everyHours: 2 }\n',
        );
        return { EXPECTED_EVENTS_FILE: join(dir, 'expected.yaml') };
      },
    });
    const { connection, consoleProcess, queueName } = running;
    try {
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
      await running.close();
    }
  });
});

import { execFile } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { runCli } from '../../../src/cli/run-cli';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { captureIo } from './cli-io-capture';

const fixture = (name: string): string => path.join(__dirname, '../../fixtures/events', name);

describe('send-test-event and challenge against the real listener', () => {
  let listener: ListenerUnderTest;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    listener = listenerUnderTest();
    server = listener.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/webhooks`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await listener.close();
  });

  it.each([['job-end.json'], ['job-end-minimal.xml'], ['loan-created.xml']])(
    'signs %s as it is on disk; the listener accepts it with 200 and queues it',
    async (file) => {
      const io = captureIo({});

      const status = await runCli(
        ['send-test-event', '--url', url, '--secret', TEST_SECRET, '--file', fixture(file)],
        io,
      );

      expect(status).toBe(0);
      expect(io.stdout()).toMatch(/← 200 OK in \d+ ms/);
      expect(io.stdout()).toMatch(
        /✓ accepted: the listener verified the signature and queued event \d+/,
      );
      const eventId = /queued event (\d+)/.exec(io.stdout())?.[1] ?? '';
      expect(await listener.events.queue.getJob(`evt-${eventId}`)).toBeDefined();
    },
  );

  it('reports a redelivery of an event id already queued as a duplicate, still accepted', async () => {
    const first = captureIo({ WEBHOOK_SECRET: TEST_SECRET });
    const again = captureIo({ WEBHOOK_SECRET: TEST_SECRET });

    await runCli(
      ['send-test-event', '--url', url, '--file', fixture('job-end-odd-values.json')],
      first,
    );
    const status = await runCli(
      ['send-test-event', '--url', url, '--file', fixture('job-end-odd-values.xml')],
      again,
    );

    expect(status).toBe(0);
    expect(again.stdout()).toMatch(
      /✓ accepted: event \S+ was already queued \(a redelivery; not queued twice\)/,
    );
  });

  it('reports a wrong secret as the 401 it is (exit 1) and never prints the secret', async () => {
    const io = captureIo({});

    const status = await runCli(
      [
        'send-test-event',
        '--url',
        url,
        '--secret',
        'wrong-secret-value',
        '--file',
        fixture('job-end.json'),
      ],
      io,
    );

    expect(status).toBe(1);
    expect(io.stdout()).toContain('← 401 Unauthorized');
    expect(io.stderr()).toContain(
      "✗ signature refused (401): the secret does not match the listener's WEBHOOK_SECRET",
    );
    expect(`${io.stdout()}${io.stderr()}`).not.toContain('wrong-secret-value');
  });

  it.each([
    ['job_end', 'json'],
    ['job_end', 'xml'],
    ['job_end_minimal', 'json'],
    ['job_end_minimal', 'xml'],
    ['loan', 'json'],
    ['loan', 'xml'],
  ])(
    'sends the built-in %s sample as %s, accepted and queued under its action',
    async (kind, format) => {
      const io = captureIo({ WEBHOOK_SECRET: TEST_SECRET });

      const status = await runCli(
        ['send-test-event', '--url', url, '--sample', kind, '--format', format],
        io,
      );
      const eventId = /queued event (\d+)/.exec(io.stdout())?.[1] ?? '';
      const job = await listener.events.queue.getJob(`evt-${eventId}`);

      expect(status).toBe(0);
      expect(io.stdout()).toContain(format === 'xml' ? 'application/xml' : 'application/json');
      expect(job?.name).toBe(kind === 'loan' ? 'loan_created' : 'job_end');
      expect((job?.data as { meta?: { format?: string } }).meta?.format).toBe(format);
    },
  );

  it('sends a fresh event id each time, so a second sample is not a duplicate', async () => {
    const first = captureIo({ WEBHOOK_SECRET: TEST_SECRET });
    const second = captureIo({ WEBHOOK_SECRET: TEST_SECRET });

    await runCli(['send-test-event', '--url', url, '--sample', 'loan'], first);
    await runCli(['send-test-event', '--url', url, '--sample', 'loan'], second);

    expect(second.stdout()).toContain('queued event');
    expect(/event (\d+)/.exec(first.stdout())?.[1]).not.toBe(
      /event (\d+)/.exec(second.stdout())?.[1],
    );
  });

  it('reports a body the listener refuses after the signature held (exit 1)', async () => {
    const io = captureIo({ WEBHOOK_SECRET: TEST_SECRET });

    const status = await runCli(
      ['send-test-event', '--url', url, '--file', fixture('job-end.json'), '--format', 'xml'],
      io,
    );

    expect(status).toBe(1);
    expect(io.stderr()).toContain('the listener verified the signature but refused the body (400)');
  });

  it('checks the challenge echo, and says when the path is wrong', async () => {
    const good = captureIo({});
    const wrong = captureIo({});

    const statuses = [
      await runCli(['challenge', '--url', url], good),
      await runCli(['challenge', '--url', `${url}-nope`], wrong),
    ];

    expect(statuses).toEqual([0, 1]);
    expect(good.stdout()).toMatch(
      /✓ http:\/\/127\.0\.0\.1:\d+\/webhooks echoed the challenge as JSON in \d+ ms/,
    );
    expect(wrong.stderr()).toContain('challenge answered with status 404');
  });

  it('says when nothing answers at the URL (exit 1)', async () => {
    const io = captureIo({ WEBHOOK_SECRET: TEST_SECRET });
    const closed = net.createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = String((closed.address() as AddressInfo).port);
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const status = await runCli(
      ['send-test-event', '--url', `http://127.0.0.1:${port}/webhooks`, '--sample', 'loan'],
      io,
    );

    expect(status).toBe(1);
    expect(io.stderr()).toMatch(
      /✗ no answer from http:\/\/127\.0\.0\.1:\d+\/webhooks: fetch failed: .*ECONNREFUSED/,
    );
  });

  it.each([
    [['send-test-event', '--sample', 'loan', '--secret', 's'], '--url <listener> is required'],
    [
      ['send-test-event', '--url', 'ftp://x/', '--sample', 'loan', '--secret', 's'],
      '--url must be http:// or https://',
    ],
    [
      ['send-test-event', '--url', 'http://x/', '--sample', 'loan'],
      '--secret is required (or set WEBHOOK_SECRET)',
    ],
    [
      ['send-test-event', '--url', 'http://x/', '--secret', 's'],
      'give either --file <body> or --sample <kind>',
    ],
    [
      ['send-test-event', '--url', 'http://x/', '--secret', 's', '--sample', 'bib'],
      '--sample must be one of job_end, job_end_minimal, loan',
    ],
    [
      [
        'send-test-event',
        '--url',
        'http://x/',
        '--secret',
        's',
        '--sample',
        'loan',
        '--format',
        'yaml',
      ],
      '--format must be json or xml',
    ],
    [
      ['send-test-event', '--url', 'http://x/', '--secret', 's', '--file', 'body.txt'],
      'cannot tell the format of body.txt',
    ],
    [
      ['send-test-event', '--url', 'http://x/', '--secret', 's', '--file', 'missing.json'],
      'cannot read --file missing.json',
    ],
    [['challenge'], 'challenge: --url <listener> is required'],
  ])('rejects %p with exit 2, naming what was wrong', async (argv, message) => {
    const io = captureIo({});

    const status = await runCli(argv, io);

    expect(status).toBe(2);
    expect(io.stderr()).toContain(message);
    expect(io.stderr()).not.toMatch(/--secret', 's'/);
  });
});

describe('npm run events (the bin)', () => {
  it('prints the usage on help and exits 2 on an unknown command', async () => {
    const run = promisify(execFile);
    const root = path.join(__dirname, '../../..');
    const tsx = path.join(root, 'node_modules/.bin/tsx');

    const help = await run(tsx, ['src/bin/cli.ts', 'help'], { cwd: root });
    const unknown = await run(tsx, ['src/bin/cli.ts', 'nope'], { cwd: root }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );

    expect(help.stdout).toContain('Usage: npm run events -- <command> [options]');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown command 'nope'");
  });
});

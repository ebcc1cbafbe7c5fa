import { execFile } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { createServer } from 'node:http';
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
      const eventId = /queued event (\S+)/.exec(io.stdout())?.[1] ?? '';
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
    ['request', 'xml'],
    ['bib', 'xml'],
    ['item', 'json'],
    ['user', 'xml'],
    ['notification', 'json'],
  ])(
    'sends the built-in %s sample as %s, accepted and queued under its action',
    async (kind, format) => {
      const io = captureIo({ WEBHOOK_SECRET: TEST_SECRET });

      const status = await runCli(
        ['send-test-event', '--url', url, '--sample', kind, '--format', format],
        io,
      );
      const eventId = /queued event (\S+)/.exec(io.stdout())?.[1] ?? '';
      const job = await listener.events.queue.getJob(`evt-${eventId}`);

      expect(status).toBe(0);
      expect(io.stdout()).toContain(format === 'xml' ? 'application/xml' : 'application/json');
      expect(job?.name).toBe(kind.startsWith('job_end') ? 'job_end' : kind);
      expect((job?.data as { meta?: { format?: string } }).meta?.format).toBe(format);
    },
  );

  it('sends a fresh event id each time, so a second sample is not a duplicate', async () => {
    const first = captureIo({ WEBHOOK_SECRET: TEST_SECRET });
    const second = captureIo({ WEBHOOK_SECRET: TEST_SECRET });

    await runCli(['send-test-event', '--url', url, '--sample', 'loan'], first);
    await runCli(['send-test-event', '--url', url, '--sample', 'loan'], second);

    const firstId = /queued event (\S+)/.exec(first.stdout())?.[1];
    expect(firstId).toMatch(/^svcws-test-/);
    expect(/queued event (\S+)/.exec(second.stdout())?.[1]).not.toBe(firstId);
  });

  it('reports a body the listener refuses after the signature held (exit 1)', async () => {
    const io = captureIo({ WEBHOOK_SECRET: TEST_SECRET });

    const status = await runCli(
      ['send-test-event', '--url', url, '--file', fixture('job-end.json'), '--format', 'xml'],
      io,
    );

    expect(status).toBe(1);
    expect(io.stderr()).toMatch(
      /✗ the listener verified the signature but refused the body \(400\): .+; kept as rejected/,
    );
  });

  it('says a 413 came before the signature was checked (the listener caps the body first)', async () => {
    const small = listenerUnderTest({ bodyLimit: '512b' });
    const smallServer = small.app.listen(0, '127.0.0.1');
    await once(smallServer, 'listening');
    const port = String((smallServer.address() as AddressInfo).port);
    const io = captureIo({});
    try {
      const status = await runCli(
        [
          'send-test-event',
          '--url',
          `http://127.0.0.1:${port}/webhooks`,
          '--secret',
          'not-the-listeners-secret',
          '--file',
          fixture('job-end.json'),
        ],
        io,
      );

      expect(status).toBe(1);
      expect(io.stdout()).toContain('← 413');
      expect(io.stderr()).toContain(
        '✗ body too large (413): body is larger than BODY_LIMIT allows; refused before the signature was checked, nothing was kept',
      );
      expect(io.stderr()).not.toContain('verified the signature');
    } finally {
      smallServer.closeAllConnections();
      await new Promise<void>((resolve) => smallServer.close(() => resolve()));
      await small.close();
    }
  });

  it('says a 503 is the listener unable to queue, which the platform retries', async () => {
    const down = listenerUnderTest({ redisUrl: 'redis://127.0.0.1:1' });
    const downServer = down.app.listen(0, '127.0.0.1');
    await once(downServer, 'listening');
    const port = String((downServer.address() as AddressInfo).port);
    const io = captureIo({ WEBHOOK_SECRET: TEST_SECRET });
    try {
      const status = await runCli(
        ['send-test-event', '--url', `http://127.0.0.1:${port}/webhooks`, '--sample', 'loan'],
        io,
      );

      expect(status).toBe(1);
      expect(io.stderr()).toMatch(
        /✗ the listener could not queue or keep the event \(503\): .+; the platform would send it again later/,
      );
    } finally {
      downServer.closeAllConnections();
      await new Promise<void>((resolve) => downServer.close(() => resolve()));
      await down.close();
    }
  });

  it('says spooled, not queued, when the listener answered 200 spooled (Redis away, the event on its disk)', async () => {
    const answering = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"status":"spooled","id":"4711"}');
      });
    }).listen(0, '127.0.0.1');
    await once(answering, 'listening');
    const port = String((answering.address() as AddressInfo).port);
    const io = captureIo({ WEBHOOK_SECRET: TEST_SECRET });
    try {
      const status = await runCli(
        ['send-test-event', '--url', `http://127.0.0.1:${port}/webhooks`, '--sample', 'loan'],
        io,
      );

      expect(status).toBe(0);
      expect(io.stdout()).toContain(
        '✓ accepted: the listener verified the signature and spooled event 4711',
      );
      expect(io.stdout()).not.toContain('queued event');
    } finally {
      answering.closeAllConnections();
      await new Promise<void>((resolve) => answering.close(() => resolve()));
    }
  });

  it.each([
    [408, '', 'the listener stopped waiting for the request (408'],
    [
      415,
      '{"status":415,"error":"unsupported_encoding","message":"Content-Encoding is not supported"}',
      'the listener could not read the body (415): Content-Encoding is not supported; refused before the signature was checked',
    ],
    [
      400,
      '{"status":400,"error":"aborted","message":"the request ended before its body was read"}',
      'the listener could not read the body (400): the request ended before its body was read; refused before the signature was checked',
    ],
    [
      415,
      '{"status":415,"error":"unsupported_charset","message":"charset latin1 is not accepted"}',
      'the listener verified the signature but refused the body (415): charset latin1 is not accepted; kept as rejected',
    ],
    [
      500,
      '{"status":500,"error":"internal_error","message":"the delivery could not be processed"}',
      'the listener failed on the event (500, a defect of the listener): the delivery could not be processed; the delivery was kept as rejected',
    ],
    [502, '<html>Bad Gateway</html>', 'the listener, or a proxy before it, failed (502): <html>'],
    [418, '', 'unexpected answer 418'],
  ])('puts an answer %d in words by what it means on the listener', async (code, body, words) => {
    const answering = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(code, { 'content-type': 'application/json' }).end(body);
      });
    }).listen(0, '127.0.0.1');
    await once(answering, 'listening');
    const port = String((answering.address() as AddressInfo).port);
    const io = captureIo({ WEBHOOK_SECRET: TEST_SECRET });
    try {
      const status = await runCli(
        ['send-test-event', '--url', `http://127.0.0.1:${port}/webhooks`, '--sample', 'loan'],
        io,
      );

      expect(status).toBe(1);
      expect(io.stderr()).toContain(`✗ ${words}`);
    } finally {
      answering.closeAllConnections();
      await new Promise<void>((resolve) => answering.close(() => resolve()));
    }
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
      /✗ no answer from http:\/\/127\.0\.0\.1:\d+\/webhooks: connection refused \(ECONNREFUSED\)/,
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
      ['send-test-event', '--url', 'http://x/', '--secret', 's', '--sample', 'holding'],
      '--sample must be one of job_end, job_end_minimal, loan, request, bib, item, user, notification',
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
    [
      ['send-test-event', '--url', 'http://x/', '--secret', 'short', '--sample', 'loan'],
      'the secret is under 16 characters, so no listener can have it',
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

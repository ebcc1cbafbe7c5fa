import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startSandbox } from '@svcws/sandbox';
import type { SandboxUnderTest } from '@svcws/sandbox';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { eventRecordOf } from '../../../src/history/event-record-of';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { createSendShaper } from '../../../src/routes/send-shaper';
import {
  FIXTURES_DIR,
  derivedPersonalValues,
  eventOfBody,
  leakedInto,
} from '../../helpers/personal-values';

function sendOf(send: string): Parameters<typeof createSendShaper>[0] {
  const file = `routes:\n  - name: r\n    send: ${send}\n    to: { file: { dir: /tmp/x } }\n`;
  return parseRoutesFile(file, {}).routes[0]?.send;
}

const masked = createSendShaper(sendOf('{ mask: patron }'));
const thinMasked = createSendShaper(sendOf('{ shape: ids, mask: patron }'));
const keys = deriveHistoryKeys('scan-history-key-0123456789abcdef');

/** What leaves the listener in clear for one event: masked deliveries, the history's columns. */
async function leaksOf(event: CanonicalEvent): Promise<Record<string, string[]>> {
  const values = derivedPersonalValues(event);
  const received = new Date('2025-03-01T10:00:00.000Z');
  const clearColumns = (bodies: 'all' | 'non-patron') => {
    const {
      userKeys: _hashed,
      bodySealed: _sealed,
      ...clear
    } = eventRecordOf(event, received, keys, bodies);
    return clear;
  };
  return {
    'mask: patron': leakedInto(values, JSON.parse((await masked(event)) ?? 'null')),
    'shape: ids, mask: patron': leakedInto(values, JSON.parse((await thinMasked(event)) ?? 'null')),
    'history, all bodies': leakedInto(values, clearColumns('all')),
    'history, non-patron bodies': leakedInto(values, clearColumns('non-patron')),
  };
}

const NO_LEAK = {
  'mask: patron': [],
  'shape: ids, mask: patron': [],
  'history, all bodies': [],
  'history, non-patron bodies': [],
};

const fixtureNames = readdirSync(FIXTURES_DIR).filter((name) => /\.(?:json|xml)$/.test(name));

describe('the personal values of every real fixture', () => {
  it('are found by the derivation where a person is (so the scan can fail)', () => {
    const counts = Object.fromEntries(
      ['loan-created.json', 'request-created.xml', 'user-updated.json']
        .concat(['notification.xml', 'notification-request-update.json'])
        .map((name) => {
          const xml = name.endsWith('.xml');
          const event = eventOfBody(readFileSync(path.join(FIXTURES_DIR, name), 'utf8'), xml);
          return [name, derivedPersonalValues(event).length];
        }),
    );
    expect(counts).toEqual({
      'loan-created.json': 2,
      'request-created.xml': 2,
      'user-updated.json': 8,
      'notification.xml': 4,
      'notification-request-update.json': 17,
    });
  });

  it.each(fixtureNames)(
    'none of %s survives masking or the history’s clear columns',
    async (name) => {
      const body = readFileSync(path.join(FIXTURES_DIR, name), 'utf8');
      const event = eventOfBody(body, name.endsWith('.xml'));
      expect(await leaksOf(event)).toEqual(NO_LEAK);
    },
  );
});

/** A webhook receiver that answers the sandbox's challenge and keeps each delivery. */
async function startWebhookReceiver(): Promise<{
  url: string;
  bodies: { body: string; xml: boolean }[];
  close(): Promise<void>;
}> {
  const bodies: { body: string; xml: boolean }[] = [];
  const server = http.createServer((req, res) => {
    const challenge = new URL(req.url ?? '/', 'http://x').searchParams.get('challenge');
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const xml = (req.headers['content-type'] ?? '').includes('xml');
      bodies.push({ body: Buffer.concat(chunks).toString('utf8'), xml });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/hook`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the personal values of every event the sandbox sends', () => {
  let sandbox: SandboxUnderTest;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    sandbox = await startSandbox();
    receiver = await startWebhookReceiver();
    for (const format of ['json', 'xml']) {
      const profile = { url: receiver.url, secret: 'scan-secret-0123456789', format };
      expect((await sandbox.admin('POST', '/webhooks', profile)).status).toBe(201);
    }
    for (const kind of ['loan', 'request', 'user', 'bib']) {
      expect((await sandbox.admin('POST', '/events', { kind })).status).toBe(202);
    }
    const run = await sandbox.admin('POST', '/jobs/S7781/run', { records: 1, duration_ms: 0 });
    expect(run.status).toBe(201);
    const deadline = Date.now() + 10_000;
    while (receiver.bodies.length < 10 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  it('sends every kind in both forms, patron kinds with personal values', () => {
    const events = receiver.bodies.map(({ body, xml }) => eventOfBody(body, xml));
    expect(events.map((event) => event.action).sort()).toEqual(
      ['bib', 'job_end', 'loan', 'request', 'user'].flatMap((action) => [action, action]),
    );
    for (const event of events.filter(
      (each) => each.action !== 'bib' && each.action !== 'job_end',
    )) {
      expect(derivedPersonalValues(event).length).toBeGreaterThan(0);
    }
  });

  it('lets none of them survive masking or the history’s clear columns', async () => {
    expect(receiver.bodies).toHaveLength(10);
    for (const { body, xml } of receiver.bodies) {
      const event = eventOfBody(body, xml);
      expect({ event: event.action, xml, leaks: await leaksOf(event) }).toEqual({
        event: event.action,
        xml,
        leaks: NO_LEAK,
      });
    }
  });
});

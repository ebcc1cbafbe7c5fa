import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startSandbox } from '@svcws/sandbox';
import type { SandboxUnderTest } from '@svcws/sandbox';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { parseJsonEvent } from '../../../src/events/parse-json-event';
import { parseXmlEvent } from '../../../src/events/parse-xml-event';
import { eventRecordOf } from '../../../src/history/event-record-of';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { createSendShaper } from '../../../src/routes/send-shaper';

/*
 * The personal values of an event, derived here from the words its keys use — not from the
 * kinds' lists (events/kinds/*), so a place those lists miss shows up as a leak.
 */

/** Keys whose whole value is a person: a patron, a requester, a letter's receiver, a proxy. */
const PERSON =
  /^(?:users?|patrons?|requesters?|receivers?|recipients?|borrowers?|proxy_for_user|user_for_printing)$/;
/** Keys that hold a person's id wherever they stand. */
const PERSON_ID = /^(?:user_id|user_primary_id|patron_id|requester_id|primary_id)$/;
/** Inside a person: the keys that name, reach or describe them. */
const ATTRIBUTE =
  /(?:^|_)(?:id|name|pin|pin_number|password|birth_date|line\d|address\d?|city|postal_code|state_province|email|email_address|phone|phone_number|note|note_text|description)$/;
/** Free text of a patron event: what they or a desk wrote (it may greet or describe them). */
const FREE_TEXT = /^(?:note|note_text|comment|message|content)$/;
/** Subjects of events about a patron (a loan, a request, a user record, a letter). */
const PATRON_SUBJECTS = ['item_loan', 'user_request', 'webhook_user', 'notification_data'];

interface Place {
  /** The key the value stands at (a list's elements stand at the list's key). */
  readonly key: string;
  /** The keys above it, outermost first. */
  readonly above: readonly string[];
  readonly inPerson: boolean;
}

function isPersonal(place: Place, patronEvent: boolean): boolean {
  const { key, above, inPerson } = place;
  if (PERSON_ID.test(key)) return true;
  if (patronEvent && FREE_TEXT.test(key)) return true;
  if (!inPerson) return false;
  // A list of addresses under a receiver's key (`recipients: ["a@…"]`), a name, an e-mail.
  if (PERSON.test(key) || ATTRIBUTE.test(key)) return true;
  // An identifier's value (`user_identifier: [{ id_type, value }]`): a library card, a student id.
  return key === 'value' && /identifier/.test(above.at(-1) ?? '');
}

/** Every personal string of `event`, each once. */
function derivedPersonalValues(event: CanonicalEvent): string[] {
  const patronEvent = PATRON_SUBJECTS.some((subject) => subject in event);
  const found = new Set<string>();
  const walk = (value: unknown, place: Place): void => {
    if (typeof value === 'string') {
      if (value.trim() !== '' && isPersonal(place, patronEvent)) found.add(value);
    } else if (Array.isArray(value)) {
      for (const element of value) walk(element, place);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === 'meta') continue;
        walk(child, {
          key,
          above: [...place.above, place.key],
          inPerson: place.inPerson || PERSON.test(key),
        });
      }
    }
  };
  walk(event, { key: '', above: [], inPerson: false });
  return [...found];
}

/** Every string of a JSON value, keys included, lower-cased. */
function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value.toLowerCase()];
  if (Array.isArray(value)) return value.flatMap(textsOf);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, child]) => [key.toLowerCase(), ...textsOf(child)]);
  }
  return [];
}

/** The personal values found anywhere inside `output`, without regard to case. */
function leakedInto(values: readonly string[], output: unknown): string[] {
  const texts = textsOf(output);
  return values.filter((value) => texts.some((text) => text.includes(value.toLowerCase())));
}

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

const FIXTURES_DIR = path.join(__dirname, '../../fixtures/events');
const fixtureNames = readdirSync(FIXTURES_DIR).filter((name) => /\.(?:json|xml)$/.test(name));

function eventOfBody(body: string, xml: boolean): CanonicalEvent {
  return normalizeEvent(xml ? parseXmlEvent(body) : parseJsonEvent(body));
}

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

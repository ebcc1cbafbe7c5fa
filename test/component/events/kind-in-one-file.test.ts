import { z } from 'zod';
import { sampleEvent } from '../../../src/cli/sample-events';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import type { EventKind } from '../../../src/events/kinds/event-kind';
import { eventKinds, rootFieldRulesOf } from '../../../src/events/kinds/event-kinds';
import { fieldRules } from '../../../src/events/kinds/field-rules';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { parseJsonEvent } from '../../../src/events/parse-json-event';
import { parseXmlEvent } from '../../../src/events/parse-xml-event';
import { onlySafeFields } from '../../../src/events/kinds/only-safe-fields';
import { isPatronEvent, withoutPersonalData } from '../../../src/events/personal-fields';
import { eventRecordOf } from '../../../src/history/event-record-of';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { createSendShaper } from '../../../src/routes/send-shaper';
import { startRouting } from '../../../src/routes/start-routing';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { fixtureEvent } from '../../helpers/fixture-events';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { eventually, silentLogger } from '../routes/support/route-events';

/** A kind the listener has no file for — a patron's fine — written as a kind file would be. */
const fine: EventKind = {
  name: 'fine',
  subject: 'user_fee',
  schema: z.looseObject({ fee_id: z.string(), amount: z.number() }),
  rules: fieldRules({ codes: ['type'], numbers: ['amount'] }),
  patron: true,
  personal: ['user_primary_id', 'payer', 'comment'],
  safe: ['fee_id', 'type', 'amount', 'item.barcode', 'item.title'],
  identifiers: { thin: ['fee_id', 'type'], history: { barcodes: ['item.barcode'] } },
  samples: {
    fine: ({ id, time, n }) => ({
      id,
      action: 'FINE',
      institution: { value: '01SVC_INST', desc: 'Test institution' },
      time,
      user_fee: {
        fee_id: `F${n}`,
        type: 'OVERDUEFINE',
        amount: '12.50',
        user_primary_id: 'P-7731',
        payer: { full_name: 'Mira Holm', email: 'mira.holm@example.org' },
        comment: 'Mira paid at the desk.',
        item: { barcode: '39000999001', title: 'Essays on memory' },
        link: `https://svc.example.org/svcws/v1/users/P-7731/fees/F${n}`,
      },
    }),
  },
};

const kinds = [...eventKinds, fine];
const rules = rootFieldRulesOf(kinds);
const now = new Date('2025-03-01T10:00:00.000Z');
const PERSONAL = ['P-7731', 'Mira Holm', 'mira.holm@example.org', 'Mira paid'];

const json = sampleEvent('fine', 'json', now, kinds);
const xml = sampleEvent('fine', 'xml', now, kinds);
/** The XML sample with the JSON one's ids (each sample has a fresh id, and record ids from it). */
const xmlText = xml.body
  .toString('utf8')
  .replaceAll(xml.eventId, json.eventId)
  .replaceAll(xml.eventId.slice(-8), json.eventId.slice(-8));

function parsed(format: 'json' | 'xml'): CanonicalEvent {
  const body =
    format === 'xml' ? parseXmlEvent(xmlText, rules) : parseJsonEvent(json.body.toString('utf8'));
  return normalizeEvent(
    body,
    { format, receivedAt: now.toISOString(), requestId: 'kind-test' },
    rules,
  );
}

function sendOf(send: string): Parameters<typeof createSendShaper>[0] {
  const file = `routes:\n  - name: fines\n    match: { action: [fine] }\n    send: ${send}\n    to: { file: { dir: /tmp/x } }\n`;
  return parseRoutesFile(file, {}).routes[0]?.send;
}

describe('a kind added in one file', () => {
  it('is parsed by its own rules, in JSON and XML alike, and fits its schema', () => {
    const event = parsed('json');
    expect(event.action).toBe('fine');
    expect(event.user_fee).toMatchObject({ amount: 12.5, type: { value: 'OVERDUEFINE' } });
    expect(fine.schema.safeParse(event.user_fee).success).toBe(true);
    const { meta: _json, ...fromJson } = event;
    const { meta: _xml, ...fromXml } = parsed('xml');
    expect(fromXml).toEqual(fromJson);
    // Without the kind in the list, the same body keeps the platform's strings.
    const text = json.body.toString('utf8');
    expect(normalizeEvent(parseJsonEvent(text)).user_fee).toMatchObject({ amount: '12.50' });
  });

  it('is routed by its action on a real route, its thin payload keeping its identifiers', async () => {
    const event = parsed('json');
    const receiver = await startRecordingHttpReceiver();
    const connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    const file = `routes:\n  - name: fines\n    match: { action: [fine] }\n    send: { shape: ids, mask: patron }\n    to: { http: { url: "${receiver.origin}/fines" } }\n`;
    const routing = startRouting({
      connection,
      routes: parseRoutesFile(file, {}).routes,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('kind-in-one-file'),
      logger: silentLogger,
      kinds,
    });
    try {
      const loan = fixtureEvent('loan');
      await routing.fanOut(loan, jobIdForEvent(loan.id));
      await routing.fanOut(event, jobIdForEvent(event.id));
      await eventually(() => receiver.requests.length > 0, 'the fine delivered');
      expect(receiver.requests.map((request) => JSON.parse(request.body) as unknown)).toEqual([
        {
          id: event.id,
          action: 'fine',
          institution: { value: '01SVC_INST', desc: 'Test institution' },
          time: event.time,
          user_fee: {
            fee_id: (event.user_fee as { fee_id: string }).fee_id,
            type: { value: 'OVERDUEFINE' },
          },
        },
      ]);
    } finally {
      await routing.close();
      await closeRedis(connection);
      for (const queue of routing.queues.values()) await obliterateQueue(queue.name);
      await receiver.close();
    }
  });

  it('is masked by its own personal paths, and only with the kind in the list', async () => {
    const event = parsed('json');
    const masked = await createSendShaper(sendOf('{ mask: patron }'), undefined, kinds)(event);
    for (const value of PERSONAL) expect(masked?.toLowerCase()).not.toContain(value.toLowerCase());
    expect(JSON.parse(masked ?? '').user_fee).toMatchObject({
      fee_id: expect.any(String) as unknown,
      item: { barcode: '39000999001' },
      link: expect.stringContaining('/users/[masked]/fees/') as unknown,
    });
    expect(isPatronEvent(event, kinds)).toBe(true);
    // The default list does not know the payer: the kind's file is what masks it.
    expect(JSON.stringify(withoutPersonalData(event))).toContain('Mira Holm');
    expect(JSON.stringify(withoutPersonalData(event, kinds))).not.toContain('Mira Holm');
  });

  it('shows a viewer its own safe fields only, and nothing of an unknown kind’s subject', () => {
    const event = parsed('json');
    const seen = onlySafeFields(event, kinds).event as Record<string, Record<string, unknown>>;
    expect(seen.user_fee).toEqual({
      fee_id: expect.any(String) as unknown,
      type: { value: 'OVERDUEFINE' },
      amount: 12.5,
      user_primary_id: '[masked]',
      payer: '[masked]',
      comment: '[masked]',
      item: { barcode: '39000999001', title: 'Essays on memory' },
      link: '[masked]',
    });
    // Without the kind's file the whole subject is one unknown key: masked.
    expect((onlySafeFields(event).event as Record<string, unknown>).user_fee).toBe('[masked]');
  });

  it('is recorded in the history: its identifiers in clear, its person hashed, its body sealed', () => {
    const event = parsed('json');
    const keys = deriveHistoryKeys('kind-test-history-key-0123456789abcdef');
    const record = eventRecordOf(event, now, keys, 'all', kinds);
    expect(record).toMatchObject({ patron: true, action: 'fine', barcodes: ['39000999001'] });
    expect(record.body).toBeUndefined();
    expect(record.bodySealed).toEqual(expect.any(String));
    expect([...record.userKeys].sort()).toEqual(
      ['P-7731', 'mira.holm@example.org'].map(keys.hashPerson).sort(),
    );
    const { bodySealed: _sealed, userKeys: _hashed, ...clear } = record;
    for (const value of PERSONAL) expect(JSON.stringify(clear)).not.toContain(value);
  });
});

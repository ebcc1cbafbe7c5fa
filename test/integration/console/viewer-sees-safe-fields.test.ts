import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { eventKinds } from '../../../src/events/kinds/event-kinds';
import { createRejectedStore } from '../../../src/events/rejected-store';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import {
  HISTORY_CONSOLE_TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { TEST_HISTORY_KEY } from '../../helpers/history-events';
import { FIXTURES_DIR, derivedPersonalValues, eventOfBody } from '../../helpers/personal-values';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { TEST_REDIS_URL } from '../../helpers/redis';

const TOKENS = HISTORY_CONSOLE_TOKENS;
/** A field a loan does not have today, holding an e-mail: no kind names it, safe or personal. */
const NEW_FIELD_VALUE = 'hidden.borrower@example.org';

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&#96;': '`',
};

/**
 * The values a page or an API answer shows, as written or as JSON writes them (a newline is
 * `\n` in a body shown as JSON), regardless of case; a page's text is read with its entities
 * decoded.
 */
function shownIn(text: string, values: readonly string[]): string[] {
  const plain = text.replace(
    /&(?:amp|lt|gt|quot|#39|#96);/g,
    (entity) => ENTITIES[entity] ?? entity,
  );
  const haystack = plain.toLowerCase();
  return values.filter((value) =>
    [value, JSON.stringify(value).slice(1, -1)].some((form) =>
      haystack.includes(form.toLowerCase()),
    ),
  );
}

/** What the failing destination quotes of an event: its personal values, and the new field. */
function quoted(event: CanonicalEvent): string[] {
  const added = (event.item_loan as Record<string, unknown> | undefined)?.borrower_contact;
  return [...derivedPersonalValues(event), ...(typeof added === 'string' ? [added] : [])];
}

interface Case {
  readonly name: string;
  readonly event: CanonicalEvent;
  /** The values a viewer must never see. */
  readonly personal: readonly string[];
}

/** Every JSON fixture with a fresh id, and a loan with a field no kind names. */
function cases(): Case[] {
  const names = readdirSync(FIXTURES_DIR).filter((name) => name.endsWith('.json'));
  const fixtures = names.map((name, index): Case => {
    const event = eventOfBody(readFileSync(path.join(FIXTURES_DIR, name), 'utf8'), false);
    const fresh = { ...event, id: `viewer-scan-${String(index)}-${event.id}` };
    return { name, event: fresh, personal: derivedPersonalValues(fresh) };
  });
  const loan = fixtures.find((one) => one.name === 'loan-returned.json')?.event;
  if (loan === undefined) throw new Error('no loan fixture');
  const added = {
    ...loan,
    id: 'viewer-scan-new-field',
    item_loan: { ...(loan.item_loan as object), borrower_contact: NEW_FIELD_VALUE },
  };
  return [
    ...fixtures,
    { name: 'loan with a new field', event: added, personal: [NEW_FIELD_VALUE] },
  ];
}

/** Adds each event as a job and fails it once, the reason quoting what the event holds. */
async function failEach(queue: Queue, all: readonly Case[]): Promise<void> {
  await queue.addBulk(
    all.map(({ event }) => ({ name: event.action, data: event, opts: { jobId: event.id } })),
  );
  let failed = 0;
  const worker = new Worker(
    queue.name,
    (job) => {
      throw new Error(`destination said 422 for ${quoted(job.data as CanonicalEvent).join(', ')}`);
    },
    { connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null } },
  );
  await new Promise<void>((resolve) => {
    worker.on('failed', () => {
      if ((failed += 1) === all.length) resolve();
    });
  });
  await worker.close();
}

describe('what a viewer sees of every fixture', () => {
  const all = cases();
  let running: ConsoleWithHistory;
  let queues: Queue[];
  const get = async (token: string, where: string): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${running.url}${where}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: response.status, text: await response.text() };
  };

  beforeAll(async () => {
    running = await startConsoleWithHistory();
    await running.record(all.map((one) => one.event));
    // Each event fails once on the event queue and on the route's, its reason quoting every
    // value it holds.
    const names = [running.queueName, routeQueueName(running.queueName, 'loans')];
    queues = names.map((name) => new Queue(name, { connection: { url: TEST_REDIS_URL } }));
    for (const queue of queues) await failEach(queue, all);
  });
  afterAll(async () => {
    for (const queue of queues) await queue.close();
    await running.close();
  });

  it('has personal values to find in the fixtures (so the scan can fail)', () => {
    expect(all.filter((one) => one.personal.length > 0).length).toBeGreaterThanOrEqual(7);
  });

  it.each(all.map((one) => [one.name, one] as const))(
    '%s: none of its personal values on the pages or in the API',
    async (_name, { event, personal }) => {
      const institution = event.institution?.value;
      const id = encodeURIComponent(event.id);
      const journey = `${encodeURIComponent(institution ?? '')}/${id}`;
      // An event without an institution has no journey path (docs/console.md).
      const places = [`/api/v1/failed/${id}`, `/failed/${id}`].concat(
        institution === undefined ? [] : [`/api/v1/events/${journey}`, `/events/${journey}`],
      );
      const seen: Record<string, string[]> = {};
      for (const where of places) {
        const answer = await get(TOKENS.viewer, where);
        expect([where, answer.status]).toEqual([where, 200]);
        seen[where] = shownIn(answer.text, personal);
      }
      expect(seen).toEqual(Object.fromEntries(places.map((where) => [where, []])));
      // An operator sees the event whole: the scan looks where the values are.
      if (personal.length > 0) {
        const operator = await get(TOKENS.operator, `/api/v1/failed/${id}`);
        expect(shownIn(operator.text, personal)).toEqual(personal);
      }
    },
  );

  it('masks the failures’ reasons in the viewer’s lists (event queue and route)', async () => {
    const personal = [...new Set(all.flatMap((one) => one.personal))];
    for (const where of ['/api/v1/failed', '/failed', '/api/v1/routes', '/routes']) {
      const answer = await get(TOKENS.viewer, where);
      expect([where, shownIn(answer.text, personal)]).toEqual([where, []]);
    }
    // The operator's failed-job list quotes them: the viewer's is masked, not empty. (A route's
    // recent failures come from the route figures, whose texts lose the event's personal values
    // when they are counted, for every role: route-figures.ts.)
    const operator = await get(TOKENS.operator, '/api/v1/failed');
    expect(shownIn(operator.text, personal).length).toBeGreaterThan(0);
  });

  it('shows a viewer a new loan field masked, and the loan’s known fields', async () => {
    const answer = await get(TOKENS.viewer, '/api/v1/failed/viewer-scan-new-field');
    const loan = (JSON.parse(answer.text) as { data: { item_loan: Record<string, unknown> } }).data
      .item_loan;
    expect(loan.borrower_contact).toBe('[masked]');
    expect(loan).toMatchObject({
      loan_id: expect.any(String) as unknown,
      title: expect.any(String) as unknown,
    });
  });

  it('prints the allow lists’ sizes per kind', () => {
    const sizes = Object.fromEntries(eventKinds.map((kind) => [kind.name, kind.safe.length]));
    process.stdout.write(`allow lists: ${JSON.stringify(sizes)}\n`);
    for (const size of Object.values(sizes)) expect(size).toBeGreaterThan(0);
  });
});

describe('a rejected delivery and a search by person, for a viewer', () => {
  let running: ConsoleWithHistory;
  const call = async (token: string, where: string) => {
    const response = await fetch(`${running.url}${where}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: response.status, text: await response.text() };
  };

  beforeAll(async () => {
    running = await startConsoleWithHistory();
  });
  afterAll(async () => {
    await running.close();
  });

  it('shows ref, time, institution, reason and length, never the bytes', async () => {
    const store = createRejectedStore({
      redis: running.redis,
      queueName: running.queueName,
      maxCount: 10,
      maxAgeHours: 1,
    });
    const body = Buffer.from(
      '{"id":"x","user_id":"S9900017","email":"rejected.person@example.org"',
    );
    const { ref } = await store.keep({
      body,
      contentType: 'application/json',
      reason: 'body: not JSON',
      status: 400,
      receivedAt: new Date(),
      requestId: 'req-viewer-1',
      eventId: 'x',
    });
    for (const where of [
      `/api/v1/rejected/${ref}`,
      `/rejected/${ref}`,
      '/api/v1/rejected',
      '/rejected',
    ]) {
      const viewer = await call(TOKENS.viewer, where);
      expect([where, viewer.status]).toEqual([where, 200]);
      expect([where, shownIn(viewer.text, ['S9900017', 'rejected.person@example.org'])]).toEqual([
        where,
        [],
      ]);
    }
    const detail = JSON.parse(
      (await call(TOKENS.viewer, `/api/v1/rejected/${ref}`)).text,
    ) as object;
    expect(Object.keys(detail).sort()).toEqual(['bytes', 'reason', 'receivedAt', 'ref', 'status']);
    expect((await call(TOKENS.operator, `/api/v1/rejected/${ref}`)).text).toContain('S9900017');
  });

  it('refuses a viewer’s search by person with 403, and audits an operator’s by hash', async () => {
    const refused = await call(TOKENS.viewer, '/api/v1/events?user=S1004217');
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toEqual({
      error: 'forbidden_role',
      message: 'searching by person (patron id, card number or e-mail) needs the operator role',
    });
    expect((await call(TOKENS.viewer, '/events?user=S1004217')).status).toBe(403);
    // The viewer's search form offers no patron id; the operator's does.
    expect((await call(TOKENS.viewer, '/events')).text).not.toContain('name="user"');
    expect((await call(TOKENS.operator, '/events')).text).toContain('name="user"');
    expect((await call(TOKENS.operator, '/api/v1/events?user=S1004217')).status).toBe(200);
    const audit = JSON.parse((await call(TOKENS.operator, '/api/v1/audit')).text) as {
      items: { actor: string; action: string; target: string; details: { outcome: string } }[];
    };
    const hash = deriveHistoryKeys(TEST_HISTORY_KEY).hashPerson('S1004217');
    const searches = audit.items
      .filter((row) => row.action === 'history.search.person')
      .map((row) => [row.actor, row.target, row.details.outcome]);
    expect(searches).toEqual(
      expect.arrayContaining([
        ['reader', hash, 'refused'],
        ['ops', hash, 'done'],
      ]),
    );
    expect(JSON.stringify(audit)).not.toContain('S1004217');
  });
});

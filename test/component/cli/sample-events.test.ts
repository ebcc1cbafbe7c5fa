import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startSandbox } from '@svcws/sandbox';
import type { SandboxUnderTest } from '@svcws/sandbox';
import { SAMPLE_KINDS, sampleEvent } from '../../../src/cli/sample-events';
import type { SampleKind } from '../../../src/cli/sample-events';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { parseJsonEvent } from '../../../src/events/parse-json-event';
import { parseXmlEvent } from '../../../src/events/parse-xml-event';
import { eventKinds } from '../../../src/events/kinds/event-kinds';
import { eventually } from '../routes/support/route-events';

/** The real-payload fixture each sample must look like. */
const FIXTURES: Record<SampleKind, string> = {
  job_end: 'job-end.json',
  job_end_minimal: 'job-end-minimal.json',
  loan: 'loan-returned.json',
  request: 'request-created.json',
  bib: 'bib-updated.json',
  item: 'item-updated.json',
  user: 'user-updated.json',
  notification: 'notification.json',
};

const EVENT_CODES: Partial<Record<SampleKind, string>> = {
  loan: 'LOAN_CREATED',
  request: 'REQUEST_CREATED',
  bib: 'BIB_UPDATED',
  item: 'ITEM_UPDATED',
  user: 'USER_UPDATED',
  notification: 'NOTIFICATION',
};

function canonical(text: string, xml = false): Record<string, unknown> {
  const event = normalizeEvent(xml ? parseXmlEvent(text) : parseJsonEvent(text));
  return event as Record<string, unknown>;
}

/** `item_loan.library.value: string`, lists as `[]`: the shape of a value, without its data. */
function shapeOf(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => shapeOf(item, `${at}[]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, child]) =>
      shapeOf(child, at === '' ? key : `${at}.${key}`),
    );
  }
  return [`${at}: ${typeof value}`];
}

describe('the CLI samples look like the platform events', () => {
  it.each(SAMPLE_KINDS.map((kind) => [kind]))(
    '%s: every field is where and what the real payload has it',
    (kind) => {
      const sample = canonical(sampleEvent(kind, 'json').body.toString('utf8'));
      const fixtureName = FIXTURES[kind];
      expect(fixtureName).toBeDefined();
      const fixture = canonical(
        readFileSync(path.join(__dirname, '../../fixtures/events', fixtureName ?? ''), 'utf8'),
      );

      const known = new Set(shapeOf(fixture));
      const unknown = shapeOf(sample).filter((field) => !known.has(field));
      expect(unknown).toEqual([]);
      expect(sample.action).toBe(fixture.action);
      expect(sample.action).toBe(kind.startsWith('job_end') ? 'job_end' : kind);
      const code = EVENT_CODES[kind];
      if (code !== undefined) expect(sample.event).toMatchObject({ value: code });
    },
  );

  it.each(SAMPLE_KINDS.map((kind) => [kind]))(
    '%s: its subject fits its kind, and the XML form reads as the same event',
    (kind) => {
      const now = new Date('2025-03-01T10:00:00.000Z');
      const json = sampleEvent(kind, 'json', now);
      const xml = sampleEvent(kind, 'xml', now);
      const fromJson = canonical(json.body.toString('utf8'));
      // Same time, fresh ids: make the XML's ids (the event's, and the records' from its digits) the JSON's.
      const xmlText = xml.body
        .toString('utf8')
        .replaceAll(xml.eventId, json.eventId)
        .replaceAll(xml.eventId.slice(-8), json.eventId.slice(-8));
      const fromXml = canonical(xmlText, true);

      expect(fromXml).toEqual(fromJson);
      expect(xml.contentType).toBe('application/xml');
      const kindOf = eventKinds.find((known) => known.subject in fromJson);
      expect(kindOf).toBeDefined();
      expect(kindOf?.schema.safeParse(fromJson[kindOf.subject]).success).toBe(true);
    },
  );
});

describe('the sandbox fires every kind the CLI samples offer', () => {
  let sandbox: SandboxUnderTest;
  /** The action each sample of `send-test-event --sample` is (job_end_minimal: a job_end). */
  const sampleActions = SAMPLE_KINDS.map((kind) => ({
    kind,
    action: String(canonical(sampleEvent(kind, 'json').body.toString('utf8')).action),
  }));

  beforeAll(async () => {
    sandbox = await startSandbox({ SANDBOX_JOB_DURATION_MS: 0 });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it.each(sampleActions.map(({ kind, action }) => [kind, action]))(
    'sample %s: the sandbox fires its kind, %s (POST /sandbox/events)',
    async (_kind, action) => {
      // A job_end is fired for an ended run: one that ran its job at once.
      const run =
        action === 'job_end'
          ? await sandbox.admin('POST', '/jobs/S7781/run', { records: 1, duration_ms: 0 })
          : undefined;
      const instanceId = (run?.json.job_instance as { id?: string } | undefined)?.id;
      const fire = () =>
        sandbox.admin('POST', '/events', { kind: action, instance_id: instanceId });
      let fired = await fire();
      // The run ends on the sandbox's timer: its job_end is refused (422) until then.
      await eventually(
        async () => fired.status !== 422 || (fired = await fire()).status !== 422,
        `the run's end, for its ${action}`,
      );

      expect(fired.status).toBe(202);
      expect(String((fired.json.event as { action?: unknown }).action).toLowerCase()).toBe(action);
    },
  );
});

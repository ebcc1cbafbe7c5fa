import { SAMPLE_KINDS, sampleEvent } from '../../../src/cli/sample-events';
import { eventPage } from '../../../src/console/pages/history-pages';
import type { HistoryEventSummary } from '../../../src/history';
import { identifiersOf } from '../../../src/history/identifiers-of';
import { normalizeEvent } from '../../../src/events/normalize-event';

const RECEIVED = '2026-03-02T10:00:00.000Z';

/** The history's summary of a sample of this kind, as search-history.ts would answer it. */
function summaryOf(kind: string): HistoryEventSummary {
  const sample = sampleEvent(kind, 'json');
  const event = normalizeEvent(JSON.parse(sample.body.toString()));
  const ids = identifiersOf(event);
  return {
    institution: event.institution?.value ?? '',
    eventId: event.id,
    action: event.action,
    eventCode: event.event?.value ?? null,
    platformTime: event.time,
    receivedAt: RECEIVED,
    patron: false,
    barcodes: ids.barcodes,
    mmsIds: ids.mmsIds,
    loanIds: ids.loanIds,
    requestIds: ids.requestIds,
    jobInstanceIds: ids.jobInstanceIds,
    hasBody: true,
    recovered: false,
  };
}

/** The header line as a reader sees it: tags gone, spaces folded. */
function headlineOf(event: HistoryEventSummary): string {
  const page = eventPage(
    { principal: { name: 'v', role: 'viewer', via: 'bearer' }, csrf: 'x', historyOn: true },
    { event, body: null, steps: [] },
  ).value;
  const line = /<p id="event-headline">([\s\S]*?)<\/p>/.exec(page)?.[1] ?? '';
  return line
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('the event page’s header', () => {
  it.each(SAMPLE_KINDS)(
    'shows only the known fields of a %s, no dangling separator or dash',
    (kind) => {
      const event = summaryOf(kind);
      const line = headlineOf(event);
      expect(line).not.toMatch(/—|· ·|^·|·$/);
      const head = event.institution === '' ? [event.action] : [event.institution, event.action];
      expect(line.startsWith(`${head.join(' · ')} · `)).toBe(true);
      expect(line.endsWith(`received ${RECEIVED}`)).toBe(true);
      if (event.eventCode !== null) expect(line).toContain(` · ${event.eventCode} · `);
    },
  );

  it('names a job_end’s job instance and leaves out the event code it does not have', () => {
    const event = summaryOf('job_end');
    expect(event.eventCode).toBeNull();
    const [instance] = event.jobInstanceIds;
    expect(headlineOf(event)).toBe(
      `01SVC_INST · job_end · job instance ${String(instance)} · received ${RECEIVED}`,
    );
  });

  it('leaves out what the platform did not send: a minimal job_end carries no institution', () => {
    const event = summaryOf('job_end_minimal');
    expect(event.institution).toBe('');
    expect(headlineOf(event)).toMatch(/^job_end · job instance \d+ · received /);
  });
});

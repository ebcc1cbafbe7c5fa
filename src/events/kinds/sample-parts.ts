/** The platform's base URL in the samples' links. */
export const SAMPLE_BASE = 'https://svc.example.org/svcws/v1';
export const SAMPLE_INSTITUTION = { value: '01SVC_INST', desc: 'Test institution' };
export const SAMPLE_LIBRARY = { value: 'MAIN', desc: 'Main Library' };
export const SAMPLE_DESK = { value: 'DEFAULT_CIRC_DESK', desc: 'Main desk' };

/**
 * The head of a sample as the platform sends it (test/fixtures/events/*.json): the upper-case
 * kind as `action` (the listener lower-cases it, so a route's `action: [loan]` takes the loan),
 * the change as the `event` code.
 */
export function sampleHead(
  id: string,
  time: string,
  action: string,
  event: string,
  desc: string,
): Record<string, unknown> {
  return { id, action, institution: SAMPLE_INSTITUTION, time, event: { value: event, desc } };
}

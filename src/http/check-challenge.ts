import { randomBytes } from 'node:crypto';
import { requestFailureOf } from '../request-failure';

/**
 * spec §6.1: `GET {listener_url}?challenge=<value>`; the listener must answer 200 with JSON
 * `{"challenge": "<value>"}`. Returns undefined when it did, else the reason it is refused.
 */
export async function checkChallenge(url: string, timeoutMs: number): Promise<string | undefined> {
  const challenge = randomBytes(16).toString('hex');
  const target = new URL(url);
  target.searchParams.set('challenge', challenge);
  let response: Response;
  try {
    response = await fetch(target, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    return `challenge request failed: ${requestFailureOf(error, timeoutMs)}`;
  }
  const text = await response.text();
  if (response.status !== 200) return `challenge answered with status ${String(response.status)}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'challenge answer is not JSON';
  }
  const echoed =
    typeof body === 'object' && body !== null
      ? (body as { challenge?: unknown }).challenge
      : undefined;
  return echoed === challenge ? undefined : 'challenge answer does not echo the challenge';
}

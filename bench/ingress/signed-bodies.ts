import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { signWebhookBody } from '../../src/signature/sign-webhook-body';

export interface SignedBody {
  body: Buffer;
  signature: string;
}

export type BodyKind = 'json' | 'xml';

const FIXTURES = path.join(__dirname, '../../test/fixtures/events');

/** A 1 KB JSON job_end and a 2 KB XML one (the fixtures, padded); `id` replaces the event id. */
function templates(): Record<BodyKind, (id: string) => string> {
  const json = readFileSync(path.join(FIXTURES, 'job-end.json'), 'utf8').replace(
    /\s+(?=(?:[^"]*"[^"]*")*[^"]*$)/g,
    '',
  );
  const xml = readFileSync(path.join(FIXTURES, 'job-end.xml'), 'utf8');
  const padXml = xml.replace(
    '</webhook>',
    `<note>${'x'.repeat(Math.max(0, 2048 - xml.length - 20))}</note></webhook>`,
  );
  const padJson =
    json.slice(0, -1) + `,"note":"${'x'.repeat(Math.max(0, 1024 - json.length - 12))}"}`;
  return {
    json: (id) => padJson.replace('"3219421620000561"', JSON.stringify(id)),
    xml: (id) => padXml.replace('<id>3219421620000561</id>', `<id>${id}</id>`),
  };
}

const made = templates();

/**
 * `count` bodies of one kind, each with an event id never used before, signed with `secret`:
 * made before the clock runs, so the load generator measures the server, not itself.
 */
export function signedBodies(kind: BodyKind, count: number, secret: string): SignedBody[] {
  const run = randomUUID().slice(0, 8);
  return Array.from({ length: count }, (_, i) => {
    const body = Buffer.from(made[kind](`${run}-${i}`));
    return { body, signature: signWebhookBody(secret, body) };
  });
}

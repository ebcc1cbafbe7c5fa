import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { matchesRoute } from '../../../src/routes/match-route';
import { redactUrlCredentials } from '../../../src/routes/redact-url-credentials';
import { renderTemplate } from '../../../src/routes/render-template';
import { StartupFileError } from '../../../src/startup/startup-file-error';
import { routeEvent } from './support/route-events';

const EVERY_DESTINATION = `
routes:
  - name: loans
    match: { action: [LOAN, request], event: [LOAN_CREATED], institution: [01ABC_INST] }
    to:
      amqp: { url: "amqp://app:\${MQ_PASSWORD}@mq.internal:5672", exchange: library-events, routingKey: "{action}.{event}" }
    retry: { attempts: 3, backoffMs: 100 }
    ratePerSecond: 50
  - name: bib-indexer
    match: { action: [bib] }
    to: { http: { url: "https://indexer.example.org/hook", secret: "\${INDEXER_SECRET}", timeoutMs: 2000 } }
  - name: users
    to: { nats: { servers: "nats://nats.internal:4222", subject: "library.{action}" } }
  - name: stream
    to: { redisStream: { stream: "events:{institution}", maxLen: 1000 } }
  - name: archive
    match: {}
    to: { file: { dir: ./archive } }
`;

/** The first route of a pair that differs in a header's value only. */
const HTTP_WITH_HEADER =
  'to: { http: { url: "https://h.example.org/hook", headers: { X-One: "1" } } }';

const ENV = { MQ_PASSWORD: 's3cret-pw', INDEXER_SECRET: 'hmac-key' };

function problemsOf(text: string, env: Record<string, string> = ENV): readonly string[] {
  try {
    parseRoutesFile(text, env);
  } catch (error) {
    if (error instanceof StartupFileError) return error.problems;
    throw error;
  }
  throw new Error('the routes file was accepted');
}

describe('routes file', () => {
  it('reads every destination kind, with defaults and ${VAR} substituted', () => {
    const { routes } = parseRoutesFile(EVERY_DESTINATION, ENV);
    expect(routes.map((route) => [route.name, route.to.kind])).toEqual([
      ['loans', 'amqp'],
      ['bib-indexer', 'http'],
      ['users', 'nats'],
      ['stream', 'redisStream'],
      ['archive', 'file'],
    ]);
    const [loans, indexer, users] = routes;
    expect(loans?.to).toEqual({
      kind: 'amqp',
      options: expect.objectContaining({ url: 'amqp://app:s3cret-pw@mq.internal:5672' }) as unknown,
    });
    expect(loans?.match.action).toEqual(['loan', 'request']);
    expect(loans?.retry).toEqual({ attempts: 3, backoffMs: 100 });
    expect(indexer?.to.kind === 'http' && indexer.to.options.secret).toBe('hmac-key');
    expect(users?.retry).toEqual({ attempts: 10, backoffMs: 5000 });
    expect(users?.match).toEqual({});
  });

  it('reads JSON as well', () => {
    const json = JSON.stringify({ routes: [{ name: 'a', to: { file: { dir: '/tmp/x' } } }] });
    expect(parseRoutesFile(json, {}).routes[0]?.name).toBe('a');
  });

  it('refuses a missing variable, naming it and where it is used', () => {
    const problems = problemsOf(EVERY_DESTINATION, { MQ_PASSWORD: 'x' });
    expect(problems).toEqual([
      'route "bib-indexer": to.http.secret: environment variable INDEXER_SECRET is not set',
    ]);
  });

  it('refuses an unknown destination, naming the route', () => {
    const problems = problemsOf('routes:\n  - name: loans\n    to: { kafka: { topic: t } }\n');
    expect(problems).toEqual([
      'route "loans": to: unknown destination kafka (one of http, amqp, nats, redisStream, file, postgres, mqtt)',
    ]);
  });

  it('refuses a duplicate route name', () => {
    const problems = problemsOf(
      'routes:\n  - { name: a, to: { file: { dir: x } } }\n  - { name: a, to: { file: { dir: y } } }\n',
    );
    expect(problems).toEqual(['route "a": name: duplicate route name']);
  });

  it('refuses two routes that are one rule under two names, naming both and why', () => {
    // Keys in another order (header names too: a map kept as written), the secret from the
    // environment in one and written out in the other, the defaults of the second written out:
    // still one rule, so every event would be delivered twice.
    const problems = problemsOf(`
routes:
  - name: loans-a
    match: { action: [loan], where: { item_loan.library.value: [MAIN], bib.isbn: { prefix: "97" } } }
    send: { shape: ids }
    to: { http: { url: "https://h.example.org/hook", secret: "\${INDEXER_SECRET}", headers: { X-One: "1", X-Two: "2" } } }
  - name: other
    to: { file: { dir: x } }
  - name: loans-b
    to: { http: { headers: { X-Two: "2", X-One: "1" }, secret: hmac-key, url: "https://h.example.org/hook" } }
    send: { shape: ids }
    retry: { backoffMs: 5000, attempts: 10 }
    match: { where: { bib.isbn: { prefix: "97" }, item_loan.library.value: [MAIN] }, action: [LOAN] }
`);
    expect(problems).toEqual([
      'route "loans-b": the same rule as route "loans-a" (everything but the name): every event it takes would be delivered twice',
    ]);
    expect(problems.join(' ')).not.toContain('hmac-key');
  });

  it.each([
    ['the destination', 'to: { file: { dir: y } }'],
    ['a destination option', 'to: { file: { dir: x, timeoutMs: 500 } }'],
    ['the match', 'match: { action: [bib] }\n    to: { file: { dir: x } }'],
    [
      'a where: condition',
      'match: { where: { bib.isbn: { prefix: "97" } } }\n    to: { file: { dir: x } }',
    ],
    ['what is sent', 'send: { shape: ids }\n    to: { file: { dir: x } }'],
    ['a header', 'to: { http: { url: "https://h.example.org/hook", headers: { X-One: "2" } } }'],
    ['the retries', 'retry: { attempts: 3 }\n    to: { file: { dir: x } }'],
  ])('takes two routes that differ in %s only', (_what, second) => {
    const first = second.includes('http') ? HTTP_WITH_HEADER : 'to: { file: { dir: x } }';
    const text = `routes:\n  - name: a\n    ${first}\n  - name: b\n    ${second}\n`;

    expect(parseRoutesFile(text, {}).routes.map((route) => route.name)).toEqual(['a', 'b']);
  });

  it('refuses two destinations on one route and a bad field, never quoting a value', () => {
    const problems = problemsOf(`
routes:
  - name: two
    to: { file: { dir: x }, http: { url: "https://h.example.org" } }
  - name: bad-url
    to: { amqp: { url: "http://guest:\${MQ_PASSWORD}@mq", exchange: e } }
  - name: Not_Valid
    to: { file: { dir: x } }
`);
    expect(problems).toEqual([
      'route "two": to: exactly one destination (http, amqp, nats, redisStream, file, postgres, mqtt)',
      'route "bad-url": to.amqp.url: a valid url',
      'route #3 (routes[2]): name: lower-case letters, digits and - only (at most 64)',
    ]);
    expect(problems.join(' ')).not.toContain('s3cret-pw');
  });

  it('refuses YAML that does not parse and a file without routes', () => {
    expect(problemsOf('routes: [ { name: a ')[0]).toMatch(/^YAML: /);
    expect(problemsOf('{}')).toEqual(['routes: required']);
  });
});

describe('matching and templates', () => {
  const event = routeEvent({ action: 'loan' });

  it('takes every event with an empty match, and requires every condition given', () => {
    expect(matchesRoute({}, event)).toBe(true);
    expect(
      matchesRoute(
        { action: ['loan'], event: ['LOAN_CREATED'], institution: ['01ABC_INST'] },
        event,
      ),
    ).toBe(true);
    expect(matchesRoute({ action: ['loan'], event: ['LOAN_RETURNED'] }, event)).toBe(false);
    expect(matchesRoute({ institution: ['OTHER'] }, event)).toBe(false);
    expect(matchesRoute({ event: ['LOAN_CREATED'] }, routeEvent({ event: undefined }))).toBe(false);
  });

  it('fills {action} {event} {institution} {id}, keeping values to safe characters', () => {
    expect(renderTemplate('{action}.{event}.{institution}.{id}', { ...event, id: '42' })).toBe(
      'loan.LOAN_CREATED.01ABC_INST.42',
    );
    expect(
      renderTemplate(
        '{event}/{institution}',
        routeEvent({ event: { value: 'A.B/..' }, institution: undefined }),
      ),
    ).toBe('A_B___/none');
  });

  it('redacts credentials in destination URLs', () => {
    expect(redactUrlCredentials('amqp://user:pa55@mq:5672/vh')).toBe('amqp://user:***@mq:5672/vh');
    expect(redactUrlCredentials('nats://a:b@n1:4222,nats://c:d@n2:4222')).toBe(
      'nats://a:***@n1:4222,nats://c:***@n2:4222',
    );
    expect(redactUrlCredentials('https://indexer.example.org/hook')).toBe(
      'https://indexer.example.org/hook',
    );
  });
});

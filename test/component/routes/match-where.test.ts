import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { matchesRoute } from '../../../src/routes/match-route';
import { StartupFileError } from '../../../src/startup/startup-file-error';
import type { RouteMatch } from '../../../src/routes/routes-file';
import { FIXTURE_KINDS, fixtureEvent } from '../../helpers/fixture-events';
import type { FixtureKind } from '../../helpers/fixture-events';

/** The `match:` of a one-route file whose `where:` is the given YAML flow mapping. */
function matchOf(where: string): RouteMatch {
  const file = `routes:\n  - name: r\n    match: { where: ${where} }\n    to: { file: { dir: /tmp/x } }\n`;
  const route = parseRoutesFile(file, {}).routes[0];
  if (route === undefined) throw new Error('no route');
  return route.match;
}

function matchingKinds(where: string): FixtureKind[] {
  const match = matchOf(where);
  return FIXTURE_KINDS.filter((kind) => matchesRoute(match, fixtureEvent(kind)));
}

function problemsOf(where: string): readonly string[] {
  try {
    matchOf(where);
  } catch (error) {
    if (error instanceof StartupFileError) return error.problems;
    throw error;
  }
  throw new Error('accepted');
}

describe('match.where on the canonical event', () => {
  it('a list holds when the value is one of it, on each kind', () => {
    expect(matchingKinds('{ item_loan.library.value: [MAIN, WEST] }')).toEqual(['loan']);
    expect(matchingKinds('{ user_request.request_type: [HOLD] }')).toEqual(['request']);
    expect(matchingKinds('{ user_request.request_type: [DIGITIZATION] }')).toEqual([]);
    expect(matchingKinds('{ job_instance.job_info.category.value: [IMPORT] }')).toEqual([
      'job_end',
    ]);
    expect(matchingKinds('{ bib.record_format: [marc21] }')).toEqual(['bib']);
    expect(matchingKinds('{ item.item_data.physical_material_type.value: [BOOK] }')).toEqual([
      'item',
    ]);
    expect(matchingKinds('{ webhook_user.method: [UPDATE] }')).toEqual(['user']);
    expect(matchingKinds('{ notification_data.channel: [EMAIL] }')).toEqual(['notification']);
    expect(matchingKinds('{ institution.value: [01SVC_INST] }')).toEqual(FIXTURE_KINDS);
  });

  it('in: compares numbers and booleans by their text', () => {
    expect(matchingKinds('{ user_request.place_in_queue: { in: [1, 2] } }')).toEqual(['request']);
    expect(matchingKinds('{ user_request.partial_digitization: { in: [false] } }')).toEqual([
      'request',
    ]);
    expect(matchingKinds('{ job_instance.progress: { in: ["100"] } }')).toEqual(['job_end']);
  });

  it('exists: true needs a value (null is none), false needs none', () => {
    expect(matchingKinds('{ item_loan.due_date: { exists: true } }')).toEqual(['loan']);
    expect(matchingKinds('{ item_loan.process_status: { exists: true } }')).toEqual([]);
    expect(matchingKinds('{ event.value: { exists: false } }')).toEqual(['job_end']);
  });

  it('prefix and regex', () => {
    expect(matchingKinds('{ item.item_data.barcode: { prefix: "39" } }')).toEqual(['item']);
    expect(matchingKinds('{ item.item_data.barcode: { prefix: "40" } }')).toEqual([]);
    expect(matchingKinds('{ bib.isbn: { regex: "^97[89][0-9]{10}$" } }')).toEqual(['bib']);
    expect(matchingKinds('{ item_loan.title: { regex: "東京" } }')).toEqual(['loan']);
  });

  it('a list along the path holds when any element does', () => {
    expect(matchingKinds('{ job_instance.counter.type.value: [TOTAL_RECORDS_IMPORTED] }')).toEqual([
      'job_end',
    ]);
    expect(
      matchingKinds('{ webhook_user.user.contact_info.email.email_type.value: [personal] }'),
    ).toEqual(['user']);
    expect(matchingKinds('{ notification_data.item.barcode: { prefix: "3900" } }')).toEqual([
      'notification',
    ]);
  });

  it('every condition must hold, with action and event as well', () => {
    const file = `routes:
  - name: main-loans
    match:
      action: [loan]
      where:
        item_loan.library.value: [MAIN]
        item_loan.due_date: { exists: true }
        item_loan.loan_id: { prefix: "234" }
    to: { file: { dir: /tmp/x } }
`;
    const match = parseRoutesFile(file, {}).routes[0]?.match ?? {};
    const loan = fixtureEvent('loan');
    expect(matchesRoute(match, loan)).toBe(true);
    const elsewhere = {
      ...loan,
      item_loan: { ...(loan.item_loan as object), library: { value: 'WEST' } },
    };
    expect(matchesRoute(match, elsewhere)).toBe(false);
  });

  it('a catastrophic pattern runs in linear time on a long value', () => {
    const match = matchOf('{ item_loan.title: { regex: "^(a+)+$" } }');
    const loan = fixtureEvent('loan');
    const evil = { ...loan, item_loan: { title: `${'a'.repeat(100_000)}!` } };
    const started = performance.now();
    expect(matchesRoute(match, evil)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('refuses at start-up a bad path, operator or pattern, naming the route and field', () => {
    expect(problemsOf('{ "item_loan..library": [MAIN] }')).toEqual([
      'route "r": match.where.item_loan..library: a path of the event (names joined by dots, e.g. bib.mms_id)',
    ]);
    expect(problemsOf('{ bib.isbn: { regex: "(?=97)" } }')).toEqual([
      'route "r": match.where.bib.isbn.regex: not a regular expression RE2 accepts (invalid or unsupported Perl syntax)',
    ]);
    expect(problemsOf('{ bib.isbn: { regex: "(" } }')[0]).toMatch(
      /^route "r": match\.where\.bib\.isbn/,
    );
    expect(problemsOf(`{ bib.isbn: { regex: "${'a'.repeat(300)}" } }`)[0]).toMatch(
      /^route "r": match\.where\.bib\.isbn/,
    );
    expect(problemsOf('{ bib.isbn: { suffix: "x" } }')[0]).toMatch(
      /^route "r": match\.where\.bib\.isbn/,
    );
    expect(problemsOf('{ bib.isbn: { prefix: "9", exists: true } }')[0]).toMatch(
      /^route "r": match\.where\.bib\.isbn/,
    );
    expect(problemsOf('{ bib.isbn: [] }')[0]).toMatch(/^route "r": match\.where\.bib\.isbn/);
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CanonicalEvent } from '../src/events/canonical-event';
import { normalizeEvent } from '../src/events/normalize-event';
import { parseJsonEvent } from '../src/events/parse-json-event';
import { matchesWhere, RouteWhere } from '../src/routes/match-where';
import { RouteSend } from '../src/routes/route-send';
import { createSendShaper } from '../src/routes/send-shaper';
import { loanBody } from './routing/post-events';
import { loadAverage } from './routing/process-cpu';

const CALLS = Number(process.env.BENCH_CALLS ?? 10_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** The routing bench's two transforms (bench/routing/pipelines.ts): direct, and JSONata's. */
const DIRECT =
  '{ "id": id, "action": action, "loan": item_loan.loan_id, "text": "Loan " & item_loan.loan_id & " (" & item_loan.loan_status & ")" }';
const EVALUATED =
  '{ "id": id, "action": action, "loan": item_loan.loan_id, "text": "Loan " & item_loan.loan_id & " (" & $lowercase(item_loan.loan_status) & ")" }';

/**
 * `npm run bench -- shaping`: the CPU one event's `where:` and `send:` cost in the worker, step by
 * step, in this process: the least of BENCH_ROUNDS rounds of BENCH_CALLS calls, after a warm-up,
 * in µs of CPU per event. Events: the routing bench's LOAN event and the user-updated fixture (the
 * kind with the most personal data). The routing bench shows the same as a whole, end to end.
 */
export async function run(): Promise<void> {
  const loan = benchLoanEvent();
  const user = normalizeEvent(
    parseJsonEvent(
      readFileSync(path.join(__dirname, '../test/fixtures/events/user-updated.json'), 'utf8'),
    ),
  );
  const where = RouteWhere.parse({
    'item_loan.loan_status': ['ACTIVE'],
    'item_loan.loan_id': { prefix: '2340' },
  });
  const shaper = (send: unknown) => createSendShaper(RouteSend.parse(send));
  const cases: [string, CanonicalEvent, (event: CanonicalEvent) => unknown][] = [
    ['where: two clauses (LOAN)', loan, (event) => matchesWhere(where, event)],
    ['mask: patron (LOAN)', loan, shaper({ mask: 'patron' })],
    ['mask: patron (user-updated)', user, shaper({ mask: 'patron' })],
    ['transform, direct (LOAN)', loan, shaper({ transform: DIRECT })],
    ['transform, JSONata evaluator (LOAN)', loan, shaper({ transform: EVALUATED })],
    ['mask + transform, direct (LOAN)', loan, shaper({ mask: 'patron', transform: DIRECT })],
    [
      'mask + transform, JSONata evaluator (LOAN)',
      loan,
      shaper({ mask: 'patron', transform: EVALUATED }),
    ],
    ['JSON.stringify of the event, for scale (LOAN)', loan, (event) => JSON.stringify(event)],
  ];
  print(
    `${String(CALLS)} calls a round, least of ${String(ROUNDS)}; load average ${loadAverage()}`,
  );
  for (const [name, event, call] of cases) {
    await cpuPerCall(event, call, 2000);
    let least = Number.POSITIVE_INFINITY;
    for (let round = 0; round < ROUNDS; round += 1) {
      least = Math.min(least, await cpuPerCall(event, call, CALLS));
    }
    print(`  ${name}: ${least.toFixed(1)} µs CPU per event`);
  }
}

/** CPU µs per call, each call awaited as the worker awaits the shaper. */
async function cpuPerCall(
  event: CanonicalEvent,
  call: (event: CanonicalEvent) => unknown,
  calls: number,
): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) await call(event);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

/** The LOAN event the routing bench posts (bench/routing/post-events.ts), as the worker reads it. */
function benchLoanEvent(): CanonicalEvent {
  return normalizeEvent(parseJsonEvent(loanBody(`${String(Date.now())}000001`)));
}

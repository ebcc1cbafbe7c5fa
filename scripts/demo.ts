import { parseArgs } from 'node:util';
import { createDemoOutput } from './demo/demo-output';

/**
 * `npm run demo [-- --watch]`: the whole path on one machine, in one process — the sandbox (the
 * platform), the listener and the worker — with a private Redis when none answers; `--watch`
 * keeps them running and adds the operator console with a token valid for this run only. Knobs (env):
 * DEMO_RECORDS (25), DEMO_JOB_DURATION_MS (2000), DEMO_WEBHOOK_FORMAT (json|xml), DEMO_TIMEOUT_MS
 * (60000), DOWNLOAD_FORMAT (XML|BINARY), WEBHOOK_SECRET (random unless given; never printed),
 * DATABASE_URL with HISTORY_KEY (the history kept in that PostgreSQL; PGlite in-process without),
 * REDIS_CLUSTER_NODES (that Redis Cluster instead of REDIS_URL; it must answer).
 *
 * This file imports nothing heavy: the demo says what it does at once, then loads the product
 * (seconds on a busy machine) and runs (scripts/demo/run-demo.ts).
 */
async function main(): Promise<number> {
  const { values } = parseArgs({ options: { watch: { type: 'boolean' } }, strict: true });
  const env = process.env;
  const settings = {
    watch: values.watch === true,
    records: intOf(env.DEMO_RECORDS, 25),
    jobDurationMs: intOf(env.DEMO_JOB_DURATION_MS, 2000),
    webhookFormat: env.DEMO_WEBHOOK_FORMAT === 'xml' ? ('xml' as const) : ('json' as const),
    timeoutMs: intOf(env.DEMO_TIMEOUT_MS, 60_000),
    env,
  };
  const out = createDemoOutput(performance.now(), (text) => process.stdout.write(text));
  out.print('svcws demo: the platform (sandbox) → webhook → listener → queue → worker → records');
  out.print();
  out.say('…', 'loading the sandbox, the listener and the worker');
  const { runDemo } = await import('./demo/run-demo.js');
  return runDemo(settings, out);
}

function intOf(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    throw new Error(`expected a whole number, got ${JSON.stringify(value)}`);
  }
  return parsed;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `demo failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);

import { startDemoConsole } from './demo-console';
import type { DemoCleanups } from './demo-cleanups';
import type { DemoOutput } from './demo-output';
import { IMPORT_JOB } from './start-demo-parts';
import type { DemoParts, DemoSettings } from './start-demo-parts';

/**
 * `--watch`: the operator console with a token for this run, commands to try against the running
 * parts, then everything keeps running until Ctrl-C.
 */
export async function watchDemo(
  parts: DemoParts,
  settings: DemoSettings,
  out: DemoOutput,
  cleanups: DemoCleanups,
  interruption: Promise<'interrupted'>,
): Promise<void> {
  // The console only when watching: the plain demo stays as quick as it was.
  const operatorConsole = await startDemoConsole({
    redisEnv: parts.redis.env,
    queueName: parts.queueName,
    routesFile: parts.routesFile,
    historyDb: parts.historyDb,
    historyKey: parts.historyKey,
    dir: parts.dir,
    logger: parts.logger('console'),
  });
  cleanups.push(operatorConsole.close);
  out.print();
  out.print(`Console: ${operatorConsole.signInUrl}`);
  out.print(`  operator token for this run only (paste it in the form): ${operatorConsole.token}`);
  out.print();
  out.print('Watching (Ctrl-C stops everything). Try:');
  for (const command of commandsToTry(parts, settings.env.WEBHOOK_SECRET !== undefined))
    out.print(`  ${command}`);
  out.print();
  await interruption;
  out.print();
  out.print('Stopping…');
}

function commandsToTry(parts: DemoParts, secretFromEnv: boolean): string[] {
  const { platformUrl, listenerBase, listenerUrl, redis, queueName } = parts;
  return [
    `curl -s -XPOST ${platformUrl}/sandbox/jobs/${IMPORT_JOB}/run -H 'content-type: application/json' -d '{}'`,
    `curl -s ${listenerBase}/metrics | grep svcws_     # listener metrics`,
    `curl -s http://127.0.0.1:${String(parts.workerMetricsPort)}/metrics | grep svcws_     # worker metrics`,
    `${redisKeysText(redis.env)} QUEUE_NAME=${queueName} npm run events -- failed`,
    ...(secretFromEnv
      ? [
          `npm run events -- send-test-event --url ${listenerUrl} --sample loan   # WEBHOOK_SECRET from env`,
        ]
      : []),
  ];
}

/** The demo's Redis keys as a command's prefix; a password stays out of the terminal. */
function redisKeysText(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .filter(([key]) => key !== 'REDIS_PASSWORD')
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

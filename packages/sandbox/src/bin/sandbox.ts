import { createLogger, loadConfig, runUntilSignal } from 'svcws-listener';
import type { Logger } from 'svcws-listener';
import { createSandbox } from '../create-sandbox';
import type { Sandbox } from '../create-sandbox';
import { SANDBOX_REDACT_PATHS, SandboxConfig } from '../sandbox-config';

const REGISTER_ATTEMPTS = 15;
const REGISTER_INTERVAL_MS = 2000;

/**
 * Composition root of the sandbox (dev and tests only): reads env, listens on 127.0.0.1, registers
 * SANDBOX_WEBHOOK_URL as a webhook profile when set, stops on SIGTERM/SIGINT.
 */
async function main(): Promise<void> {
  const config = loadConfig(SandboxConfig, process.env);
  const logger = createLogger({
    level: config.LOG_LEVEL,
    name: 'sandbox',
    redact: SANDBOX_REDACT_PATHS,
  });
  const sandbox = createSandbox({ config, logger });
  const running = await sandbox.start(config.SANDBOX_PORT);
  logger.info(
    { url: running.url, apiBase: `${running.url}/svcws/v1`, admin: `${running.url}/sandbox` },
    'sandbox ready',
  );

  if (config.SANDBOX_WEBHOOK_URL !== undefined) {
    if (config.SANDBOX_WEBHOOK_SECRET === undefined) {
      logger.error(
        'SANDBOX_WEBHOOK_URL is set without SANDBOX_WEBHOOK_SECRET; no webhook registered',
      );
    } else {
      void registerWebhook(sandbox, logger, {
        url: config.SANDBOX_WEBHOOK_URL,
        secret: config.SANDBOX_WEBHOOK_SECRET,
        format: config.SANDBOX_WEBHOOK_FORMAT,
      });
    }
  }

  runUntilSignal({
    logger,
    stoppingMessage: 'sandbox stopping',
    stoppedMessage: 'sandbox stopped',
    steps: [{ name: 'sandbox', close: running.close }],
  });
}

/** The listener may start after the sandbox (compose): try the challenge for about 30 s. */
async function registerWebhook(
  sandbox: Sandbox,
  logger: Logger,
  profile: { url: string; secret: string; format: 'json' | 'xml' },
): Promise<void> {
  for (let attempt = 1; attempt <= REGISTER_ATTEMPTS; attempt += 1) {
    const result = await sandbox.webhooks.register(profile);
    if (result.ok) return;
    logger.warn(
      { url: profile.url, attempt, reason: result.reason },
      'webhook registration refused',
    );
    await new Promise((resolve) => setTimeout(resolve, REGISTER_INTERVAL_MS).unref());
  }
  logger.error({ url: profile.url }, 'webhook not registered; use POST /sandbox/webhooks');
}

main().catch((error: unknown) => {
  // Config errors name keys only; nothing secret is in them.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

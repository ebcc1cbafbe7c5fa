import { readFile } from 'node:fs/promises';
import { normalizeEvent } from '../events/normalize-event';
import { parseJsonEvent } from '../events/parse-json-event';
import { parseXmlEvent } from '../events/parse-xml-event';
import type { CanonicalEvent, EventMeta } from '../events/canonical-event';
import { matchesRoute } from '../routes/match-route';
import { previewDelivery } from '../routes/preview-delivery';
import { createSendShaper } from '../routes/send-shaper';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { cliRoutes, routeNamed } from './open-route-queues';
import { parseCommandArgs } from './parse-command-args';
import { SAMPLE_KINDS, sampleEvent } from './sample-events';
import type { SampleKind } from './sample-events';

/**
 * `routes test <name> --sample <kind>|--file <f>`: does the event match the route, and what would
 * be sent — destination, address, headers, body — without sending anything. Exit 0 when it
 * matches, 1 when it does not (so a script can ask).
 */
export async function routesTestCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'routes test';
  const { values, positionals } = parseCommandArgs(command, args, {
    sample: { type: 'string' },
    file: { type: 'string' },
  });
  if (positionals.length !== 1) throw new CliUsageError(`${command}: give one route name`);
  if ((values.sample === undefined) === (values.file === undefined)) {
    throw new CliUsageError(`${command}: give either --sample <kind> or --file <body.json|.xml>`);
  }
  const { config, routes, redactSecrets } = cliRoutes(io.env);
  // What matches, what is sent and why it fails, with the routes file's secrets as `***`.
  const out = (text: string): void => io.out(redactSecrets(text));
  const route = routeNamed(routes, positionals[0], command);
  const event =
    values.sample !== undefined
      ? sampleOf(values.sample, command)
      : await fileEvent(values.file ?? '');
  if (!matchesRoute(route.match, event)) {
    out(
      `✗ event ${event.id} (${event.action}) does not match route ${route.name}: ${JSON.stringify(route.match)}`,
    );
    return 1;
  }
  out(`✓ event ${event.id} (${event.action}) matches route ${route.name}`);
  let body: string | undefined;
  try {
    body = await createSendShaper(route.send)(event);
  } catch (error) {
    out(`✗ send: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const preview = previewDelivery(route, event, {
    redisUrl: config.REDIS_URL,
    redactSecrets,
    ...(body === undefined ? {} : { body }),
  });
  out(`destination: ${preview.kind}  ${preview.target}`);
  out(`address: ${preview.address}`);
  for (const [name, value] of Object.entries(preview.headers)) out(`  ${name}: ${value}`);
  out(`body: ${preview.body}`);
  return 0;
}

function sampleOf(kind: string, command: string): CanonicalEvent {
  if (!(SAMPLE_KINDS as readonly string[]).includes(kind)) {
    throw new CliUsageError(`${command}: --sample is one of ${SAMPLE_KINDS.join(', ')}`);
  }
  const sample = sampleEvent(kind as SampleKind, 'json');
  return normalizeEvent(parseJsonEvent(sample.body.toString('utf8')), metaNow());
}

async function fileEvent(path: string): Promise<CanonicalEvent> {
  const text = await readFile(path, 'utf8');
  const xml = text.trimStart().startsWith('<');
  return normalizeEvent(xml ? parseXmlEvent(text) : parseJsonEvent(text), {
    ...metaNow(),
    format: xml ? 'xml' : 'json',
  });
}

function metaNow(): EventMeta {
  return { format: 'json', receivedAt: new Date().toISOString(), requestId: 'routes-test' };
}

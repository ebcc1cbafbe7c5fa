import { Redis } from 'ioredis';
import { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import { DeliveryError } from '../delivery-error';
import { redactUrlCredentials } from '../redact-url-credentials';
import { renderTemplate } from '../render-template';
import type { DeliveryPreview, Destination } from './destination';
import type { DestinationAdapter } from './destination-adapter';
import type { DestinationContext } from './destination-context';

/** `to: { redisStream: { stream, url?, maxLen? } }` */
export const RedisStreamDestinationOptions = z.strictObject({
  stream: z.string().min(1),
  /** REDIS_URL unless given. */
  url: z.url({ protocol: /^rediss?$/ }).optional(),
  /** Approximate trim (`MAXLEN ~`): Redis trims whole nodes, cheaply. */
  maxLen: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().default(5000),
});
export type RedisStreamDestinationOptions = z.infer<typeof RedisStreamDestinationOptions>;

export const redisStreamDestination: DestinationAdapter<
  RedisStreamDestinationOptions,
  'redisStream'
> = {
  kind: 'redisStream',
  options: RedisStreamDestinationOptions,
  create: createRedisStreamDestination,
  preview: previewRedisStream,
};

function previewRedisStream(
  options: RedisStreamDestinationOptions,
  event: CanonicalEvent,
  context: Pick<DestinationContext, 'redisUrl'>,
  shaped?: string,
): DeliveryPreview {
  const stream = renderTemplate(options.stream, event);
  return {
    kind: 'redisStream',
    target: targetOf(options, context.redisUrl),
    address: `XADD ${stream}${options.maxLen === undefined ? '' : ` MAXLEN ~ ${String(options.maxLen)}`} *`,
    headers: { id: event.id, action: event.action },
    body: shaped ?? JSON.stringify(event),
  };
}

/**
 * XADD of fields `id`, `action` and `event` (the canonical JSON). The connection fails commands at
 * once while Redis is away (no offline queue), so the attempt fails and the backoff waits instead.
 */
export function createRedisStreamDestination(
  options: RedisStreamDestinationOptions,
  context: DestinationContext,
): Destination {
  const url = options.url ?? context.redisUrl;
  const target = targetOf(options, context.redisUrl);
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.timeoutMs,
    connectTimeout: options.timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  redis.on('error', () => undefined);
  let connecting: Promise<void> | undefined;
  const ready = async (): Promise<void> => {
    if (redis.status === 'ready') return;
    if (redis.status === 'wait' || redis.status === 'end') {
      connecting ??= redis.connect().finally(() => {
        connecting = undefined;
      });
    }
    await connecting;
  };
  return {
    kind: 'redisStream',
    target,
    deliver: async (event, shaped) => {
      const stream = renderTemplate(options.stream, event);
      const trim = options.maxLen === undefined ? [] : ['MAXLEN', '~', String(options.maxLen)];
      try {
        await ready();
        await redis.xadd(
          stream,
          ...trim,
          '*',
          'id',
          event.id,
          'action',
          event.action,
          'event',
          shaped ?? JSON.stringify(event),
        );
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        throw new DeliveryError(`${target}: ${redactUrlCredentials(text)}`, {
          retryable: true,
          cause: error,
        });
      }
    },
    close: async () => {
      if (redis.status === 'ready') await redis.quit().catch(() => undefined);
      else redis.disconnect();
    },
  };
}

function targetOf(options: RedisStreamDestinationOptions, redisUrl: string): string {
  return `${redactUrlCredentials(options.url ?? redisUrl)} stream ${options.stream}`;
}

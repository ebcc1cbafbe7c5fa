import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis/redis-client';
import { z } from 'zod';

/** A signed delivery that could not become an event, as it arrived: the sender never retries a 4xx (docs/listener.md). */
export interface RejectedDelivery {
  body: Buffer;
  contentType: string | undefined;
  /** Why it was refused: the message the sender was answered with. */
  reason: string;
  /** The status the sender was answered with (4xx, or 500 for a defect of ours). */
  status: number;
  receivedAt: Date;
  requestId: string;
  eventId?: string | undefined;
  /** The institution of the path it came on (INSTITUTIONS_FILE): replay queues it there. */
  institution?: string | undefined;
}

/** One kept delivery without its bytes: what `rejected --json` prints. Read back from Redis. */
export const RejectedEntry = z.object({
  ref: z.string(),
  receivedAt: z.iso.datetime(),
  status: z.coerce.number().int(),
  reason: z.string(),
  contentType: z.string().optional(),
  bytes: z.coerce.number().int(),
  eventId: z.string().optional(),
  requestId: z.string(),
  institution: z.string().optional(),
});
export type RejectedEntry = z.infer<typeof RejectedEntry>;

export interface RejectedStore {
  /** Keeps the delivery; resolves once Redis has it, with how many old entries made room. */
  keep: (delivery: RejectedDelivery) => Promise<{ ref: string; evicted: number }>;
  /** Newest first; the newest `limit` only when given. */
  list: (limit?: number) => Promise<RejectedEntry[]>;
  get: (ref: string) => Promise<{ entry: RejectedEntry; body: Buffer } | undefined>;
  remove: (ref: string) => Promise<boolean>;
}

export interface RejectedStoreOptions {
  redis: RedisClient;
  /** Keys live under `<queueName>:rejected:`, apart from BullMQ's own `bull:<queueName>:`. */
  queueName: string;
  maxCount: number;
  maxAgeHours: number;
  /** A connection still opening is waited for this long (the listener's has no offline queue). */
  readyTimeoutMs?: number;
  now?: () => Date;
}

const FIELDS = [
  'receivedAt',
  'status',
  'reason',
  'contentType',
  'bytes',
  'eventId',
  'requestId',
  'institution',
];

/**
 * Adds one entry and drops what is over the bounds, in one step: entries older than the age
 * bound, then the oldest ones over the count bound. Each entry's hash also expires by itself.
 * KEYS: index, entry. ARGV: ref, score, maxCount, minScore, ttlMs, entryPrefix, field, value, …
 */
const KEEP_SCRIPT = `
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 7))
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local evicted = 0
local function drop(refs)
  for _, ref in ipairs(refs) do
    redis.call('DEL', ARGV[6] .. ref)
    redis.call('ZREM', KEYS[1], ref)
    evicted = evicted + 1
  end
end
drop(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4]))
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if over > 0 then drop(redis.call('ZRANGE', KEYS[1], 0, over - 1)) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return evicted
`;

/**
 * Where signed deliveries that could not become an event are kept: a sorted set by time and one
 * hash per entry with the raw bytes. Never a log. The ref is the body's digest, so a delivery
 * sent again (a 500 the sender retries) is one entry, not one per attempt.
 */
export function createRejectedStore({
  redis,
  queueName,
  maxCount,
  maxAgeHours,
  readyTimeoutMs = 1000,
  now = () => new Date(),
}: RejectedStoreOptions): RejectedStore {
  const prefix = `${queueName}:rejected:`;
  const store: StoreKeys = {
    redis,
    index: `${prefix}index`,
    entryPrefix: `${prefix}entry:`,
    ttlMs: maxAgeHours * 3_600_000,
    maxCount,
    readyTimeoutMs,
    now,
  };
  return {
    keep: (delivery) => keepDelivery(store, delivery),
    list: (limit) => listEntries(store, limit),
    get: (ref) => getEntry(store, ref),
    remove: (ref) => removeEntry(store, ref),
  };
}

/** What every operation of one store needs: its connection, keys and bounds. */
interface StoreKeys {
  redis: RedisClient;
  index: string;
  entryPrefix: string;
  ttlMs: number;
  maxCount: number;
  readyTimeoutMs: number;
  now: () => Date;
}

async function keepDelivery(
  store: StoreKeys,
  delivery: RejectedDelivery,
): Promise<{ ref: string; evicted: number }> {
  const { redis, index, entryPrefix, ttlMs } = store;
  const ref = rejectedRefOf(delivery.body);
  const minScore = store.now().getTime() - ttlMs;
  await whenReady(redis, store.readyTimeoutMs);
  const evicted = await redis.eval(
    KEEP_SCRIPT,
    2,
    index,
    `${entryPrefix}${ref}`,
    ref,
    String(delivery.receivedAt.getTime()),
    String(store.maxCount),
    String(minScore),
    String(ttlMs),
    entryPrefix,
    ...entryFields(delivery),
  );
  return { ref, evicted: Number(evicted) };
}

/** The ref of a kept delivery: its body's digest, so the same bytes sent again are one entry. */
export function rejectedRefOf(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

/** The hash of one kept delivery, as field, value, … (absent fields are left out). */
function entryFields(delivery: RejectedDelivery): (string | Buffer)[] {
  const fields: (string | Buffer)[] = [
    'body',
    delivery.body,
    'receivedAt',
    delivery.receivedAt.toISOString(),
    'status',
    String(delivery.status),
    'reason',
    delivery.reason,
    'bytes',
    String(delivery.body.length),
    'requestId',
    delivery.requestId,
  ];
  if (delivery.contentType !== undefined) fields.push('contentType', delivery.contentType);
  if (delivery.eventId !== undefined) fields.push('eventId', delivery.eventId);
  if (delivery.institution !== undefined) fields.push('institution', delivery.institution);
  return fields;
}

async function listEntries(store: StoreKeys, limit?: number): Promise<RejectedEntry[]> {
  const { redis, index, entryPrefix } = store;
  await whenReady(redis, store.readyTimeoutMs);
  const refs = await redis.zrevrange(index, 0, limit === undefined ? -1 : limit - 1);
  if (refs.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const ref of refs) pipeline.hmget(`${entryPrefix}${ref}`, ...FIELDS);
  const answers = (await pipeline.exec()) ?? [];
  const entries: RejectedEntry[] = [];
  const gone: string[] = [];
  refs.forEach((ref, i) => {
    const [error, values] = answers[i] ?? [null, null];
    const entry = error ? undefined : entryOf(ref, (values as (string | null)[]) ?? []);
    if (entry) entries.push(entry);
    else gone.push(ref);
  });
  // Entries whose hash expired on its own leave their ref in the index until now.
  if (gone.length > 0) await redis.zrem(index, ...gone);
  return entries;
}

async function getEntry(
  store: StoreKeys,
  ref: string,
): Promise<{ entry: RejectedEntry; body: Buffer } | undefined> {
  const key = `${store.entryPrefix}${ref}`;
  await whenReady(store.redis, store.readyTimeoutMs);
  const [values, body] = await Promise.all([
    store.redis.hmget(key, ...FIELDS),
    store.redis.hgetBuffer(key, 'body'),
  ]);
  const entry = entryOf(ref, values);
  return entry === undefined || body === null ? undefined : { entry, body };
}

async function removeEntry(store: StoreKeys, ref: string): Promise<boolean> {
  await whenReady(store.redis, store.readyTimeoutMs);
  const [[, removed] = [null, 0]] =
    (await store.redis.multi().zrem(store.index, ref).del(`${store.entryPrefix}${ref}`).exec()) ??
    [];
  return Number(removed) > 0;
}

/** One entry read back from its hash's FIELDS; undefined when it is gone or no longer valid. */
function entryOf(ref: string, values: (string | null)[]): RejectedEntry | undefined {
  if (values.every((value) => value === null)) return undefined;
  const raw = Object.fromEntries(
    FIELDS.map((field, i) => [field, values[i] ?? undefined]).filter(([, v]) => v !== undefined),
  );
  const parsed = RejectedEntry.safeParse({ ref, ...raw });
  return parsed.success ? parsed.data : undefined;
}

/** Resolves once the connection is ready; rejects after `ms` (or at once when it has ended). */
async function whenReady(redis: RedisClient, ms: number): Promise<void> {
  if (redis.status === 'ready') return;
  if (redis.status === 'end') throw new Error('Connection is closed.');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`Command timed out: Redis not ready within ${String(ms)} ms`));
    }, ms);
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', onReady);
  });
}

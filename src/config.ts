import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { hashTagged } from './redis/hash-tag';
import { ruleOfIssue } from './startup/rule-of-issue';

/**
 * The one schema over the product's environment. Each process (web, worker, cli) picks the keys it
 * needs with `.pick()`; every key is declared here once so `.env.example`, the README and the
 * compose file can agree with it line by line. Secrets have no default. The sandbox is not the
 * product: its keys are read by its own package (packages/sandbox).
 */

/** The forms of an environment value, shared with any other schema read by `loadConfig`. */
export const envValue = {
  port: z.coerce.number().int().min(0).max(65535),
  positiveInt: z.coerce.number().int().positive(),
  nonNegativeInt: z.coerce.number().int().nonnegative(),
  optionalSecret: z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value)),
  csv: z.string().transform((value) =>
    value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  ),
};
const { port, positiveInt, nonNegativeInt, optionalSecret, csv } = envValue;

/** `1mb`, `512kb`, `2048` (bytes): the form express.raw's `limit` takes, checked here. */
const byteSize = z
  .string()
  .regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, 'a size such as 1mb, 512kb or 2048');

/** `203.0.113.7` or `10.0.0.0/8` (IPv4 or IPv6; a prefix within the address's bits). */
function isAddressOrCidr(part: string): boolean {
  const [address = '', prefix, extra] = part.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Addresses and CIDR ranges separated by commas (never host names: they are not checked). */
const addressList = csv.refine(
  (parts) => parts.length > 0 && parts.every(isAddressOrCidr),
  'IP addresses or CIDR ranges separated by commas',
);

/** Shared secrets a guess must not find: as long as HISTORY_KEY's. */
const longSecret = z.string().min(32, 'at least 32 characters');

/** Webhook secrets: a short shared secret can be guessed offline from one signed body. */
const webhookSecret = z.string().min(16, 'at least 16 characters');

/** `host:port,host:port` (`[v6]:port`; `defaultPort` when a part has none). */
const hostPortList = (defaultPort: number) =>
  z.string().transform((value, ctx) => {
    const addresses: { host: string; port: number }[] = [];
    for (const part of value.split(',')) {
      const match = /^\s*(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]]+))(?::(\d{1,5}))?\s*$/.exec(part);
      const port = match?.[3] === undefined ? defaultPort : Number(match[3]);
      if (match === null || port < 1 || port > 65535) {
        ctx.addIssue({ code: 'custom', message: 'host:port pairs separated by commas' });
        return z.NEVER;
      }
      addresses.push({ host: match[1] ?? match[2] ?? '', port });
    }
    return addresses;
  });

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
/** LOG_LEVEL's values: for a process that reads no other configuration (the CLI's own lines). */
export const LogLevel = logLevel;

export const EnvSchema = z.object({
  // web (listener)
  PORT: port.default(3000),
  /**
   * The interface PORT listens on: the loopback, behind a reverse proxy on the same host (the host
   * and systemd recipes); a container sets 0.0.0.0 (the image, compose and kubernetes do).
   */
  HOST: z.string().min(1).default('127.0.0.1'),
  WEBHOOK_PATH: z.string().startsWith('/').default('/webhooks'),
  WEBHOOK_SECRET: webhookSecret,
  WEBHOOK_SECRET_PREVIOUS: optionalSecret.pipe(webhookSecret.optional()),
  BODY_LIMIT: byteSize.default('1mb'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  // Redis through Sentinel (docs/deployment.md#redis-sentinel): both keys or neither; REDIS_URL
  // is not read then.
  REDIS_SENTINELS: hostPortList(26379).optional(),
  REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ., _ and - only')
    .optional(),
  REDIS_SENTINEL_PASSWORD: optionalSecret,
  // A Redis Cluster (docs/deployment.md#a-redis-cluster): some of its nodes, the others found
  // from them; REDIS_URL is not read then, and REDIS_SENTINELS may not be set beside it.
  REDIS_CLUSTER_NODES: hostPortList(6379).optional(),
  /** TLS to every node of REDIS_CLUSTER_NODES (a single Redis takes `rediss://` in REDIS_URL). */
  REDIS_CLUSTER_TLS: z.enum(['on', 'off']).default('off'),
  REDIS_PASSWORD: optionalSecret,
  // A 200 only once WAIT confirms this many replicas hold the job (0: the primary alone).
  REDIS_ACK_REPLICAS: nonNegativeInt.max(16).default(0),
  REDIS_ACK_TIMEOUT_MS: positiveInt.max(3500).default(500),
  QUEUE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('svc-events'),
  DEDUP_WINDOW_HOURS: positiveInt.default(48),
  LOG_LEVEL: logLevel.default('info'),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10000),
  // Bounds of the unauthenticated surface: a client gets this long for its headers,
  // this long for the whole request, and idle keep-alive lasts longer than a proxy's (60 s).
  HEADERS_TIMEOUT_MS: positiveInt.default(10000),
  REQUEST_TIMEOUT_MS: positiveInt.default(15000),
  KEEP_ALIVE_TIMEOUT_MS: positiveInt.default(65000),
  MAX_CONNECTIONS: positiveInt.default(1024),
  // Signed deliveries that could not become an event, kept for `npm run events -- rejected`.
  REJECTED_MAX_COUNT: positiveInt.default(1000),
  REJECTED_MAX_AGE_HOURS: positiveInt.default(336),
  /** When set, GET /metrics (the listener's and the worker's) asks for "Authorization: Bearer <token>". */
  METRICS_TOKEN: optionalSecret.pipe(longSecret.optional()),
  /** The listener's /metrics on a port of its own, and no longer on PORT; unset: on PORT. */
  METRICS_PORT: port.optional(),
  /** The interface METRICS_PORT listens on (127.0.0.1, a private address); unset: every one. */
  METRICS_HOST: z.string().min(1).optional(),

  // API client
  SVC_BASE_URL: z.url({ protocol: /^https?$/ }),
  SVC_API_KEY: z.string().min(1),
  SVC_RATE_PER_SECOND: positiveInt.default(25),
  SVC_TIMEOUT_MS: positiveInt.default(30000),
  SVC_MAX_RETRIES: nonNegativeInt.default(3),
  SVC_REMAINING_FLOOR: nonNegativeInt.default(1000),
  /**
   * The most bytes of one list page (SVC_MAX_LIST_BYTES) and of any other answer
   * (SVC_MAX_ANSWER_BYTES); past it a call fails with BODY_TOO_LARGE. Unset: the client's
   * defaults (DEFAULT_BODY_CAPS, packages/client/src/body-caps.ts). Downloads are not capped.
   */
  SVC_MAX_LIST_BYTES: positiveInt.optional(),
  SVC_MAX_ANSWER_BYTES: positiveInt.optional(),

  // worker
  WORKER_CONCURRENCY: positiveInt.default(4),
  WORKER_METRICS_PORT: port.default(9464),
  /** The interface WORKER_METRICS_PORT listens on; 0.0.0.0 where Prometheus scrapes across a network. */
  WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  // With the worker's SVC_MAX_RETRIES 0: a failing call is sent 10 times at most (processes/worker-process.ts).
  JOB_ATTEMPTS: positiveInt.default(10),
  RECORDS_DIR: z.string().min(1).default('./records'),
  DOWNLOAD_FORMAT: z.enum(['XML', 'BINARY']).default('XML'),
  DOWNLOAD_LINE_TYPES: csv.default(['TOTAL_RECORDS_IMPORTED']),
  IMPORT_JOB_MATCH: z.string().min(1).default('category=IMPORT|type=MD_IMPORT|name~import'),
  WORKER_MAX_STALLED_COUNT: nonNegativeInt.default(5),
  /** Routes file (docs/routing.md); unset: no routing, the worker behaves as before. */
  ROUTES_FILE: z.string().min(1).optional(),
  /**
   * on: the worker makes each delivery's first attempt while it processes the event, where the
   * route can take it now; off: every delivery goes through its route queue (docs/routing.md).
   */
  ROUTE_INLINE: z.enum(['on', 'off']).default('on'),
  /** An inline attempt not confirmed within this many ms gets a held route job (docs/routing.md). */
  ROUTE_INLINE_DEADLINE_MS: positiveInt.default(2000),
  /**
   * Institutions file (docs/deployment.md#a-consortium): one listener path, secret, key and base
   * address per member. Unset: one institution from WEBHOOK_SECRET, SVC_API_KEY and SVC_BASE_URL.
   */
  INSTITUTIONS_FILE: z.string().min(1).optional(),

  // event history (docs/history.md, docs/privacy.md): unset DATABASE_URL, no history.
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** Keys the user-id hashes and the patron bodies' encryption; required with DATABASE_URL. */
  HISTORY_KEY: optionalSecret.pipe(z.string().min(32, 'at least 32 characters').optional()),
  HISTORY_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL name')
    .default('svcws_history'),
  /** Which events' bodies are kept: every one, those of non-patron events, or none. */
  HISTORY_BODIES: z.enum(['all', 'non-patron', 'none']).default('all'),
  HISTORY_RETENTION_DAYS: positiveInt.max(3650).default(90),
  HISTORY_PATRON_RETENTION_DAYS: positiveInt.max(3650).default(7),
  /** Records waiting in Redis for PostgreSQL at most; beyond it new ones are dropped and counted. */
  HISTORY_BACKLOG_MAX: positiveInt.default(1_000_000),
  /**
   * Replay and recovery runs (console and CLI, every route) running at once at most; one more is
   * refused, naming the runs (src/operations/running-runs.ts). Each runs at its own rate.
   */
  REPLAY_MAX_RUNNING: positiveInt.max(100).default(4),
  // console (docs/console.md)
  CONSOLE_PORT: port.default(3001),
  /** The console is for operators: on the loopback unless told otherwise. */
  CONSOLE_HOST: z.string().min(1).default('127.0.0.1'),
  /** YAML `tokens: [{ name, sha256, role, institution? }]` (npm run events -- console-token). */
  CONSOLE_TOKENS_FILE: z.string().min(1).optional(),
  /**
   * Addresses or CIDR ranges of the reverse proxies whose X-Forwarded-For and -Proto are believed:
   * the client is the rightmost address of X-Forwarded-For that is not one of them (the guess
   * limits count per client, the session cookie is Secure behind TLS). Unset: the socket's address.
   */
  CONSOLE_TRUSTED_PROXIES: addressList.optional(),
  /**
   * Addresses or CIDR ranges of the single sign-on proxy whose identity header is believed, and
   * only with CONSOLE_PROXY_SECRET in its X-Console-Proxy-Secret header (docs/console.md).
   */
  CONSOLE_TRUSTED_PROXY: addressList.optional(),
  /** The secret the single sign-on proxy sends in X-Console-Proxy-Secret; required with CONSOLE_TRUSTED_PROXY. */
  CONSOLE_PROXY_SECRET: optionalSecret.pipe(longSecret.optional()),
  /** The header that proxy sets to the signed-in identity. */
  CONSOLE_IDENTITY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'a header name')
    .default('X-Forwarded-User'),
  /** YAML `identities: [{ identity, role, institution? }]`: the proxy's identities → roles. */
  CONSOLE_ROLES_FILE: z.string().min(1).optional(),
  CONSOLE_SESSION_HOURS: positiveInt.max(168).default(8),
  /** Live sign-in sessions at most; a sign-in beyond it ends one (docs/console.md#sessions). */
  CONSOLE_MAX_SESSIONS: positiveInt.max(1_000_000).default(10_000),
  /** Live sessions of one principal (one token) at most; a sign-in beyond it ends its oldest. */
  CONSOLE_MAX_SESSIONS_PER_PRINCIPAL: positiveInt.max(1_000_000).default(10),

  // reconciliation of job_end (docs/worker.md#reconciliation)
  /** How often the fleet looks for job_ends never delivered (one run per interval); 0: never. */
  RECONCILE_INTERVAL_SECONDS: nonNegativeInt.max(86_400).default(900),
  /** How far each run reaches back before the last one ended, for instances listed late. */
  RECONCILE_OVERLAP_MINUTES: nonNegativeInt.max(1440).default(60),
  /** Jobs looked at besides those IMPORT_JOB_MATCH selects (comma-separated job ids). */
  RECONCILE_JOB_IDS: csv.default([]),
  /** Pages of one list (the job list, or one job's instances, 100 a page) a run reads at most. */
  RECONCILE_MAX_PAGES: positiveInt.max(10_000).default(20),
  /** job_ends one run queues at most; the rest wait for the next run. */
  RECONCILE_MAX_RECOVERED: positiveInt.max(1_000_000).default(1000),
  /** A run's wall-clock time at most; never more than 80% of RECONCILE_INTERVAL_SECONDS. */
  RECONCILE_MAX_RUN_SECONDS: positiveInt.max(86_400).default(300),
  /**
   * The share (%) of the API budget left above SVC_REMAINING_FLOOR that one run may spend: at 1%,
   * 96 runs a day that all hit it leave about 38% of the budget (0.99^96).
   */
  RECONCILE_BUDGET_PERCENT: positiveInt.max(100).default(1),
  /**
   * The single institution's code (its events' institution.value), put in the job_ends the
   * reconciliation makes; with INSTITUTIONS_FILE each member's code is used instead.
   */
  INSTITUTION_CODE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only (at most 64)')
    .optional(),
  /**
   * YAML `expected: [{ institution?, jobEnd | kind, everyHours }]`: events that must come at least
   * every so often (docs/operations.md#expected-events); unset: none expected.
   */
  EXPECTED_EVENTS_FILE: z.string().min(1).optional(),

  // the listener's disk spool (docs/listener.md#the-spool)
  /**
   * A directory of the listener's own (one per process, locked): when the queue does not answer,
   * deliveries are written here, answered 200 and moved into the queue once Redis answers.
   * Unset: `$STATE_DIRECTORY/spool` when systemd sets STATE_DIRECTORY, else `./spool` under the
   * working directory (listenerSpoolDir below); `off`: no spool, such a delivery is answered 503.
   */
  SPOOL_DIR: z.string().min(1).optional(),
  /** The spool's size on disk at most; past it a delivery the queue did not take is answered 503. */
  SPOOL_MAX_BYTES: positiveInt.default(256 * 1024 * 1024),
});
export type EnvSchema = z.infer<typeof EnvSchema>;

/** How every process reaches Redis (src/redis/open-redis.ts); picked together, checked together. */
export const redisKeys = {
  REDIS_URL: true,
  REDIS_SENTINELS: true,
  REDIS_SENTINEL_NAME: true,
  REDIS_SENTINEL_PASSWORD: true,
  REDIS_CLUSTER_NODES: true,
  REDIS_CLUSTER_TLS: true,
  REDIS_PASSWORD: true,
} as const;

/**
 * Sentinel needs both its list and the primary's name: one alone is a typo, not a choice; and a
 * cluster is not reached through Sentinel.
 */
export function sentinelKeysTogether(
  config: {
    REDIS_SENTINELS?: unknown;
    REDIS_SENTINEL_NAME?: unknown;
    REDIS_CLUSTER_NODES?: unknown;
  },
  ctx: z.RefinementCtx,
): void {
  if (config.REDIS_CLUSTER_NODES !== undefined && config.REDIS_SENTINELS !== undefined) {
    const message = 'a Redis Cluster or Sentinel, not both: set one of the two';
    ctx.addIssue({ code: 'custom', path: ['REDIS_CLUSTER_NODES'], message });
  }
  if ((config.REDIS_SENTINELS === undefined) === (config.REDIS_SENTINEL_NAME === undefined)) return;
  const missing = config.REDIS_SENTINELS === undefined ? 'REDIS_SENTINELS' : 'REDIS_SENTINEL_NAME';
  const other = missing === 'REDIS_SENTINELS' ? 'REDIS_SENTINEL_NAME' : 'REDIS_SENTINELS';
  ctx.addIssue({ code: 'custom', path: [missing], message: `required with ${other}` });
}

/**
 * With INSTITUTIONS_FILE the per-institution keys come from that file, so the single-institution
 * keys are required only without it: still one error naming the key when both are missing.
 */
function requiredWithoutInstitutionsFile(keys: readonly string[]) {
  return (value: Record<string, unknown>, ctx: z.core.$RefinementCtx<Record<string, unknown>>) => {
    if (value.INSTITUTIONS_FILE !== undefined) return;
    for (const key of keys) {
      if (value[key] === undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: 'required' });
    }
  };
}

/** `needed` is required when `given` is set: one without the other is a mistake to name. */
function requiredWith(needed: string, given: string) {
  return (config: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    if (config[given] === undefined || config[needed] !== undefined) return;
    ctx.addIssue({ code: 'custom', path: [needed], message: `required with ${given}` });
  };
}

/** METRICS_HOST binds METRICS_PORT's server: alone it would bind nothing. */
const metricsHostWithPort = requiredWith('METRICS_PORT', 'METRICS_HOST');
/**
 * On a Redis Cluster each queue is its own hash tag, `{QUEUE_NAME}`, and the names made from it
 * are too (src/redis/hash-tag.ts): the queues spread over the primaries, each with its keys on one
 * slot. One Redis and Sentinel keep the name as it is, and so their keys.
 */
export function queueOnItsSlot<T extends { QUEUE_NAME: string; REDIS_CLUSTER_NODES?: unknown }>(
  config: T,
): T {
  if (config.REDIS_CLUSTER_NODES === undefined) return config;
  return { ...config, QUEUE_NAME: hashTagged(config.QUEUE_NAME) };
}

/** With DATABASE_URL the history is on, and it cannot hash or encrypt without HISTORY_KEY. */
const historyKeyWithDatabase = requiredWith('HISTORY_KEY', 'DATABASE_URL');

/** Run the check even when other keys are bad: one start-up error names every key at fault. */
const ALWAYS = { when: () => true };

export const WebConfig = EnvSchema.pick({
  ...redisKeys,
  REDIS_ACK_REPLICAS: true,
  REDIS_ACK_TIMEOUT_MS: true,
  PORT: true,
  HOST: true,
  WEBHOOK_PATH: true,
  WEBHOOK_SECRET_PREVIOUS: true,
  BODY_LIMIT: true,
  QUEUE_NAME: true,
  DEDUP_WINDOW_HOURS: true,
  LOG_LEVEL: true,
  SHUTDOWN_TIMEOUT_MS: true,
  JOB_ATTEMPTS: true,
  HEADERS_TIMEOUT_MS: true,
  REQUEST_TIMEOUT_MS: true,
  KEEP_ALIVE_TIMEOUT_MS: true,
  MAX_CONNECTIONS: true,
  REJECTED_MAX_COUNT: true,
  REJECTED_MAX_AGE_HOURS: true,
  METRICS_TOKEN: true,
  METRICS_PORT: true,
  METRICS_HOST: true,
  INSTITUTIONS_FILE: true,
  SPOOL_DIR: true,
  SPOOL_MAX_BYTES: true,
})
  .extend({ WEBHOOK_SECRET: webhookSecret.optional() })
  .superRefine(requiredWithoutInstitutionsFile(['WEBHOOK_SECRET']), ALWAYS)
  .superRefine(metricsHostWithPort, ALWAYS)
  .superRefine(sentinelKeysTogether)
  .overwrite(queueOnItsSlot);
export type WebConfig = z.infer<typeof WebConfig>;

/** Where the listener spools, and why there; `dir` undefined: it does not (SPOOL_DIR=off). */
export interface ListenerSpoolDir {
  readonly dir: string | undefined;
  readonly from: 'SPOOL_DIR' | 'STATE_DIRECTORY' | 'working directory' | 'SPOOL_DIR=off';
}

/**
 * SPOOL_DIR's default, resolved by bin/web.ts: a listener spools unless told not to, so a Redis
 * outage is answered 200 `spooled` and not 503 (the sender retries only much later). systemd's
 * `StateDirectory=` sets STATE_DIRECTORY (deploy/systemd/svcws-listener.service).
 */
export function listenerSpoolDir(
  spoolDir: string | undefined,
  env: { readonly STATE_DIRECTORY?: string | undefined },
  cwd: string,
): ListenerSpoolDir {
  if (spoolDir === 'off') return { dir: undefined, from: 'SPOOL_DIR=off' };
  if (spoolDir !== undefined) return { dir: spoolDir, from: 'SPOOL_DIR' };
  // systemd passes a colon-separated list when the unit names several directories: the first.
  const state = env.STATE_DIRECTORY?.split(':')[0];
  if (state !== undefined && state !== '') {
    return { dir: path.join(state, 'spool'), from: 'STATE_DIRECTORY' };
  }
  return { dir: path.join(cwd, 'spool'), from: 'working directory' };
}

export const ClientConfig = EnvSchema.pick({
  SVC_BASE_URL: true,
  SVC_API_KEY: true,
  SVC_RATE_PER_SECOND: true,
  SVC_TIMEOUT_MS: true,
  SVC_MAX_RETRIES: true,
  SVC_REMAINING_FLOOR: true,
  SVC_MAX_LIST_BYTES: true,
  SVC_MAX_ANSWER_BYTES: true,
  LOG_LEVEL: true,
});
export type ClientConfig = z.infer<typeof ClientConfig>;

/** The history's keys, picked together by every process that records or reads history. */
const historyKeys = {
  DATABASE_URL: true,
  HISTORY_KEY: true,
  HISTORY_SCHEMA: true,
  HISTORY_BODIES: true,
  HISTORY_RETENTION_DAYS: true,
  HISTORY_PATRON_RETENTION_DAYS: true,
  HISTORY_BACKLOG_MAX: true,
} as const;

export const WorkerConfig = ClientConfig.extend({
  ...EnvSchema.pick({
    ...redisKeys,
    QUEUE_NAME: true,
    WORKER_CONCURRENCY: true,
    WORKER_METRICS_PORT: true,
    WORKER_METRICS_HOST: true,
    METRICS_TOKEN: true,
    WORKER_MAX_STALLED_COUNT: true,
    RECORDS_DIR: true,
    DOWNLOAD_FORMAT: true,
    DOWNLOAD_LINE_TYPES: true,
    IMPORT_JOB_MATCH: true,
    SHUTDOWN_TIMEOUT_MS: true,
    ROUTES_FILE: true,
    ROUTE_INLINE: true,
    ROUTE_INLINE_DEADLINE_MS: true,
    INSTITUTIONS_FILE: true,
    // The reconciliation queues job_ends as the listener does, and remembers them as long.
    DEDUP_WINDOW_HOURS: true,
    JOB_ATTEMPTS: true,
    RECONCILE_INTERVAL_SECONDS: true,
    RECONCILE_OVERLAP_MINUTES: true,
    RECONCILE_JOB_IDS: true,
    RECONCILE_MAX_PAGES: true,
    RECONCILE_MAX_RECOVERED: true,
    RECONCILE_MAX_RUN_SECONDS: true,
    RECONCILE_BUDGET_PERCENT: true,
    INSTITUTION_CODE: true,
    EXPECTED_EVENTS_FILE: true,
  }).shape,
  ...EnvSchema.pick(historyKeys).shape,
  // The worker retries through BullMQ (JOB_ATTEMPTS); client retries inside would multiply them.
  SVC_MAX_RETRIES: nonNegativeInt.default(0),
  SVC_BASE_URL: EnvSchema.shape.SVC_BASE_URL.optional(),
  SVC_API_KEY: EnvSchema.shape.SVC_API_KEY.optional(),
})
  .superRefine(requiredWithoutInstitutionsFile(['SVC_BASE_URL', 'SVC_API_KEY']), ALWAYS)
  .superRefine(sentinelKeysTogether)
  .superRefine(historyKeyWithDatabase)
  .overwrite(queueOnItsSlot);
export type WorkerConfig = z.infer<typeof WorkerConfig>;

export const HistoryConfig = EnvSchema.pick({
  ...historyKeys,
  REPLAY_MAX_RUNNING: true,
}).superRefine(historyKeyWithDatabase);
export type HistoryConfig = z.infer<typeof HistoryConfig>;
export const ConsoleConfig = EnvSchema.pick({
  ...redisKeys,
  QUEUE_NAME: true,
  DEDUP_WINDOW_HOURS: true,
  JOB_ATTEMPTS: true,
  LOG_LEVEL: true,
  SHUTDOWN_TIMEOUT_MS: true,
  REJECTED_MAX_COUNT: true,
  REJECTED_MAX_AGE_HOURS: true,
  ROUTES_FILE: true,
  EXPECTED_EVENTS_FILE: true,
  INSTITUTIONS_FILE: true,
  CONSOLE_PORT: true,
  CONSOLE_HOST: true,
  CONSOLE_TOKENS_FILE: true,
  CONSOLE_TRUSTED_PROXIES: true,
  CONSOLE_TRUSTED_PROXY: true,
  CONSOLE_PROXY_SECRET: true,
  CONSOLE_IDENTITY_HEADER: true,
  CONSOLE_ROLES_FILE: true,
  CONSOLE_SESSION_HOURS: true,
  CONSOLE_MAX_SESSIONS: true,
  CONSOLE_MAX_SESSIONS_PER_PRINCIPAL: true,
  // The history pages and API calls read the history (docs/history.md) when DATABASE_URL is set.
  ...historyKeys,
  REPLAY_MAX_RUNNING: true,
})
  .superRefine(historyKeyWithDatabase, ALWAYS)
  .superRefine((config, ctx) => {
    // Without either file nobody could sign in: a console nobody can open is a mistake.
    if (config.CONSOLE_TOKENS_FILE === undefined && config.CONSOLE_ROLES_FILE === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['CONSOLE_TOKENS_FILE'],
        message: 'required (or CONSOLE_ROLES_FILE)',
      });
    }
    if (
      (config.CONSOLE_ROLES_FILE === undefined) !==
      (config.CONSOLE_TRUSTED_PROXY === undefined)
    ) {
      const missing =
        config.CONSOLE_ROLES_FILE === undefined ? 'CONSOLE_ROLES_FILE' : 'CONSOLE_TRUSTED_PROXY';
      ctx.addIssue({
        code: 'custom',
        path: [missing],
        message: 'required with the other proxy key',
      });
    }
    if (config.CONSOLE_TRUSTED_PROXY !== undefined && config.CONSOLE_PROXY_SECRET === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['CONSOLE_PROXY_SECRET'],
        message:
          'required with CONSOLE_TRUSTED_PROXY: an identity header is now believed only with this secret in X-Console-Proxy-Secret, and X-Forwarded-For only from CONSOLE_TRUSTED_PROXIES (docs/console.md#single-sign-on-through-a-reverse-proxy)',
      });
    }
  }, ALWAYS)
  .superRefine(sentinelKeysTogether)
  .overwrite(queueOnItsSlot);
export type ConsoleConfig = z.infer<typeof ConsoleConfig>;

/**
 * Where the keys come from, said with every configuration error: a deployer who filled in `.env`
 * and started the process another way otherwise cannot tell why a key is missing.
 */
const CONFIG_SOURCES =
  'keys are read from the environment; npm start, worker, console and events add the .env file of the directory they run in';

/** Thrown at start-up; names the offending keys and the rule, never a value. */
export class ConfigError extends Error {
  readonly keys: string[];
  constructor(issues: { key: string; rule: string }[]) {
    super(
      `invalid configuration: ${issues.map((issue) => `${issue.key} (${issue.rule})`).join('; ')}\n(${CONFIG_SOURCES})`,
    );
    this.name = 'ConfigError';
    this.keys = issues.map((issue) => issue.key);
  }
}

/**
 * Parses `env` with one of the schemas above. Empty strings count as unset, so a blank line in
 * `.env` falls back to the default instead of failing on a required-but-empty key.
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv | Record<string, string | undefined>,
): z.infer<S> {
  const input: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        key: String(issue.path[0] ?? '(root)'),
        // zod's messages can quote the received value; keep only the rule.
        rule:
          input[String(issue.path[0])] === undefined && issue.code !== 'custom'
            ? 'required'
            : ruleOfIssue(issue),
      })),
    );
  }
  return result.data;
}

import { z } from 'zod';

/**
 * The one schema over the environment. Each process (web, worker, sandbox, cli) picks the keys it
 * needs with `.pick()`; every key is declared here once so `.env.example`, the README and the
 * compose file can agree with it line by line. Secrets have no default.
 */

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().nonnegative();
const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));
const csv = z.string().transform((value) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== ''),
);

/** `1mb`, `512kb`, `2048` (bytes): the form express.raw's `limit` takes, checked here. */
const byteSize = z
  .string()
  .regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, 'a size such as 1mb, 512kb or 2048');

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export const EnvSchema = z.object({
  // web (listener)
  PORT: port.default(3000),
  WEBHOOK_PATH: z.string().startsWith('/').default('/webhooks'),
  WEBHOOK_SECRET: z.string().min(1),
  WEBHOOK_SECRET_PREVIOUS: optionalSecret,
  BODY_LIMIT: byteSize.default('1mb'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  QUEUE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('svc-events'),
  DEDUP_WINDOW_HOURS: positiveInt.default(48),
  LOG_LEVEL: logLevel.default('info'),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10000),
  ADMIN_TOKEN: optionalSecret,

  // API client
  SVC_BASE_URL: z.url({ protocol: /^https?$/ }),
  SVC_API_KEY: z.string().min(1),
  SVC_RATE_PER_SECOND: positiveInt.default(25),
  SVC_TIMEOUT_MS: positiveInt.default(30000),
  SVC_MAX_RETRIES: nonNegativeInt.default(3),
  SVC_REMAINING_FLOOR: nonNegativeInt.default(1000),

  // worker
  WORKER_CONCURRENCY: positiveInt.default(4),
  WORKER_METRICS_PORT: port.default(9464),
  JOB_ATTEMPTS: positiveInt.default(8),
  RECORDS_DIR: z.string().min(1).default('./records'),
  DOWNLOAD_FORMAT: z.enum(['XML', 'BINARY']).default('XML'),
  DOWNLOAD_LINE_TYPES: csv.default(['TOTAL_RECORDS_IMPORTED']),
  IMPORT_JOB_MATCH: z.string().min(1).default('category=IMPORT|type=MD_IMPORT|name~import'),
  /** Routes file (docs/routing.md); unset: no routing, the worker behaves as before. */
  ROUTES_FILE: z.string().min(1).optional(),

  // sandbox (development and tests only)
  SANDBOX_PORT: port.default(8790),
  SANDBOX_API_KEYS: csv.default(['sandbox-key']),
  SANDBOX_SEED: nonNegativeInt.default(42),
  SANDBOX_DAILY_BUDGET: positiveInt.default(100000),
  SANDBOX_RATE_PER_SECOND: positiveInt.default(25),
  SANDBOX_JOB_DURATION_MS: nonNegativeInt.default(3000),
  SANDBOX_RECORD_COUNT: nonNegativeInt.default(25),
  SANDBOX_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
  SANDBOX_WEBHOOK_URL: z.url({ protocol: /^https?$/ }).optional(),
  SANDBOX_WEBHOOK_SECRET: optionalSecret,
  SANDBOX_WEBHOOK_FORMAT: z.enum(['json', 'xml']).default('json'),
});
export type EnvSchema = z.infer<typeof EnvSchema>;

export const WebConfig = EnvSchema.pick({
  PORT: true,
  WEBHOOK_PATH: true,
  WEBHOOK_SECRET: true,
  WEBHOOK_SECRET_PREVIOUS: true,
  BODY_LIMIT: true,
  REDIS_URL: true,
  QUEUE_NAME: true,
  DEDUP_WINDOW_HOURS: true,
  LOG_LEVEL: true,
  SHUTDOWN_TIMEOUT_MS: true,
  ADMIN_TOKEN: true,
  JOB_ATTEMPTS: true,
});
export type WebConfig = z.infer<typeof WebConfig>;

export const ClientConfig = EnvSchema.pick({
  SVC_BASE_URL: true,
  SVC_API_KEY: true,
  SVC_RATE_PER_SECOND: true,
  SVC_TIMEOUT_MS: true,
  SVC_MAX_RETRIES: true,
  SVC_REMAINING_FLOOR: true,
  LOG_LEVEL: true,
});
export type ClientConfig = z.infer<typeof ClientConfig>;

export const WorkerConfig = ClientConfig.extend(
  EnvSchema.pick({
    REDIS_URL: true,
    QUEUE_NAME: true,
    WORKER_CONCURRENCY: true,
    WORKER_METRICS_PORT: true,
    RECORDS_DIR: true,
    DOWNLOAD_FORMAT: true,
    DOWNLOAD_LINE_TYPES: true,
    IMPORT_JOB_MATCH: true,
    SHUTDOWN_TIMEOUT_MS: true,
    ROUTES_FILE: true,
  }).shape,
);
export type WorkerConfig = z.infer<typeof WorkerConfig>;

export const SandboxConfig = EnvSchema.pick({
  SANDBOX_PORT: true,
  SANDBOX_API_KEYS: true,
  SANDBOX_SEED: true,
  SANDBOX_DAILY_BUDGET: true,
  SANDBOX_RATE_PER_SECOND: true,
  SANDBOX_JOB_DURATION_MS: true,
  SANDBOX_RECORD_COUNT: true,
  SANDBOX_RETRY_SCALE: true,
  SANDBOX_WEBHOOK_URL: true,
  SANDBOX_WEBHOOK_SECRET: true,
  SANDBOX_WEBHOOK_FORMAT: true,
  LOG_LEVEL: true,
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** Thrown at start-up; names the offending keys and the rule, never a value. */
export class ConfigError extends Error {
  readonly keys: string[];
  constructor(issues: { key: string; rule: string }[]) {
    super(
      `invalid configuration: ${issues.map((issue) => `${issue.key} (${issue.rule})`).join('; ')}`,
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
        rule: input[String(issue.path[0])] === undefined ? 'required' : ruleOf(issue),
      })),
    );
  }
  return result.data;
}

function ruleOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_value':
      return `one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' || issue.format === 'starts_with'
        ? issue.message
        : `a valid ${issue.format}`;
    case 'too_small':
      return `at least ${String(issue.minimum)}`;
    case 'too_big':
      return `at most ${String(issue.maximum)}`;
    case 'invalid_type':
      return `a ${issue.expected}`;
    default:
      return issue.message;
  }
}

import { EnvSchema, envValue } from 'svcws-listener';
import { z } from 'zod';

/**
 * The sandbox's environment (development and tests only; never part of the product's schema).
 * Read with the product's `loadConfig`, so a bad key fails at start naming the key, never the value.
 */

const { port, positiveInt, nonNegativeInt, optionalSecret, csv } = envValue;

export const SandboxConfig = z.object({
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
  /** 0: every webhook sent; 1: every one lost; N: one in N lost (never sent, no retry). */
  SANDBOX_WEBHOOK_LOSE_ONE_IN: nonNegativeInt.default(0),
  /** The institution this platform serves: its events' `institution.value` (a consortium test runs two). */
  SANDBOX_INSTITUTION_CODE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .default('01SVC_INST'),
  LOG_LEVEL: EnvSchema.shape.LOG_LEVEL,
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** Log paths the sandbox blanks besides the product's own (its webhook secret). */
export const SANDBOX_REDACT_PATHS = ['SANDBOX_WEBHOOK_SECRET'] as const;

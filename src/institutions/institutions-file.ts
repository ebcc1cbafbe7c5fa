import { z } from 'zod';

/**
 * An institution code: the `institution.value` of its events (spec §6.2), its path segment under
 * WEBHOOK_PATH, its folder under RECORDS_DIR and part of its queue's name, so it is kept to what
 * all four take.
 */
export const InstitutionCode = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only (at most 64)');

/** The same rule as WEBHOOK_SECRET: a short shared secret can be guessed from one signed body. */
const webhookSecret = z.string().min(16, 'at least 16 characters');

/** One member of a consortium: its own listener path, secrets, API key, base address and budget. */
export const InstitutionEntry = z.strictObject({
  code: InstitutionCode,
  webhookSecret,
  /** Accepted besides webhookSecret during a rotation. */
  webhookSecretPrevious: webhookSecret.optional(),
  apiKey: z.string().min(1),
  /** Its regional deployment (spec §1): each member may be served from another one. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  /** Calls per second this member's client sends from one worker process (SVC_RATE_PER_SECOND). */
  ratePerSecond: z.number().int().positive().optional(),
  /** Its governance floor (SVC_REMAINING_FLOOR): under it, only this member's work pauses. */
  remainingFloor: z.number().int().nonnegative().optional(),
  /** Its records' format (DOWNLOAD_FORMAT). */
  downloadFormat: z.enum(['XML', 'BINARY']).optional(),
  /** Jobs its reconciliation looks at besides IMPORT_JOB_MATCH's (RECONCILE_JOB_IDS). */
  reconcileJobIds: z.array(z.string().min(1)).optional(),
});
export type InstitutionEntry = z.infer<typeof InstitutionEntry>;

export const InstitutionsFile = z
  .strictObject({ institutions: z.array(InstitutionEntry).min(1, 'at least one institution') })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.institutions.forEach((institution, index) => {
      if (seen.has(institution.code)) {
        ctx.addIssue({
          code: 'custom',
          path: ['institutions', index, 'code'],
          message: 'the same code as an institution above',
        });
      }
      seen.add(institution.code);
    });
  });
export type InstitutionsFile = z.infer<typeof InstitutionsFile>;

import { z } from 'zod';

/** The queued form of an event: what the listener would have added, exactly (same job id). */
const SpooledJob = z.object({
  kind: z.literal('job'),
  /** Unix ms when it was spooled: the oldest one's age is a metric. */
  spooledAt: z.number(),
  queue: z.string(),
  name: z.string(),
  jobId: z.string(),
  data: z.record(z.string(), z.unknown()),
  opts: z.record(z.string(), z.unknown()),
});

/** A refused-but-signed delivery whose rejected store could not be reached (src/events/rejected-store.ts). */
const SpooledRejected = z.object({
  kind: z.literal('rejected'),
  spooledAt: z.number(),
  body: z.base64(),
  contentType: z.string().optional(),
  reason: z.string(),
  status: z.number().int(),
  receivedAt: z.iso.datetime(),
  requestId: z.string(),
  eventId: z.string().optional(),
  institution: z.string().optional(),
});

/** One spool record's payload, checked when it is read back from disk (a boundary). */
export const SpoolEntry = z.discriminatedUnion('kind', [SpooledJob, SpooledRejected]);
export type SpoolEntry = z.infer<typeof SpoolEntry>;

import type { SvcApiError } from './svc-api-error';

/** The job-submit operation (spec §4.3): `POST /conf/jobs/{job_id}` with `op=run`. */
export const JOB_SUBMIT_ROUTE = 'POST /conf/jobs/{job_id}';

const MINUTE = 60_000;

interface Explained {
  explanation: string;
  retryable: boolean;
  retryAfterMs?: number;
}

/**
 * What the job-submit refusals mean for a person, and whether trying again can help.
 * - Threshold (402222, 402223; §4.3 rules 1-2, §8): clears with time, either when one of the
 *   3 running API jobs ends or when the hour of 5 runs rolls on. Retryable, after 10 minutes: the
 *   spec does not say which of the two limits was hit, and a run started within the hour clears
 *   one sixth of the way through it at the latest.
 * - Overlap (60347): clears when the running instance ends. Retryable after 5 minutes, a guess at
 *   a short job; the caller may know better (it can watch the instance).
 * - Multi-task (402231; §4.3 rule 4): a property of the job. Never retryable.
 */
const EXPLAINED: Readonly<Record<string, Explained>> = {
  '402222': threshold(),
  '402223': threshold(),
  '60347': {
    explanation:
      'The job was not started: another run of the same job is still in progress. Try again when it has finished.',
    retryable: true,
    retryAfterMs: 5 * MINUTE,
  },
  '402231': {
    explanation:
      'The job was not started: it is made of more than one task, and the platform does not start such jobs through the API. Run it from the platform instead.',
    retryable: false,
  },
};

function threshold(): Explained {
  return {
    explanation:
      'The job was not started: the platform allows at most 3 API-started jobs running at once, or 5 runs of the same job per hour. Try again later.',
    retryable: true,
    retryAfterMs: 10 * MINUTE,
  };
}

/** Rewrites a job-submit refusal in user words; any other error comes back unchanged. */
export function explainJobSubmitError(error: SvcApiError): SvcApiError {
  if (error.route !== JOB_SUBMIT_ROUTE || error.code === undefined) return error;
  const known = EXPLAINED[error.code];
  if (!known) return error;
  const platform = error.platformMessage ?? error.meaning;
  return error.with({
    message: platform ? `${known.explanation} (platform: ${platform})` : known.explanation,
    explanation: known.explanation,
    retryable: known.retryable,
    retryAfterMs: known.retryAfterMs,
  });
}

/** One rule of one institution, as an operator reads it (the console's overview, the metrics). */
export interface ExpectedEventState {
  readonly institution: string;
  /** `job_end:<job>` or `kind:<kind>` (src/expected/expected-events-file.ts). */
  readonly rule: string;
  readonly everyHours: number;
  /** The last event that met it; undefined when none has since it is watched. */
  readonly lastSeenAt: Date | undefined;
  /** Seconds since that event, or since the rule is watched when none came. */
  readonly ageSeconds: number;
  /** No such event for longer than `everyHours`. */
  readonly late: boolean;
}

import type { z } from 'zod';
import type { FieldRules } from './field-rules';

/** The history's columns of record identifiers, each searched by its own filter. */
export const RECORD_COLUMNS = [
  'barcodes',
  'mmsIds',
  'loanIds',
  'requestIds',
  'jobInstanceIds',
] as const;
export type RecordColumn = (typeof RECORD_COLUMNS)[number];

/** What every sample is built from: a fresh id, the current time, the derived numbers. */
export interface SampleSeed {
  readonly id: string;
  readonly time: string;
  /** Eight digits of the id: record ids that differ from one sample to the next. */
  readonly n: string;
}

/** One sample event of a kind, in the shape of a real payload (the CLI's `--sample`). */
export type SampleBody = (seed: SampleSeed) => Record<string, unknown>;

/**
 * One kind of event the platform sends (spec §6.2: an object for the subject of the event): all
 * the listener knows of the kind, in one file. Paths are dot paths inside the subject and walk
 * through lists (`contact_info.email.email_address` is every e-mail of the list); `**.key` is
 * that key at any depth of the subject.
 */
export interface EventKind {
  /** The kind's name, as routes and docs call it (the lower-cased `action`). */
  readonly name: string;
  /** The root key of the subject object, as real payloads name it. */
  readonly subject: string;
  /** A lenient schema of the subject: the fields this kind is known by, any other kept. */
  readonly schema: z.ZodType;
  /** Which fields of the subject are codes, numbers, strings, booleans, lists or objects. */
  readonly rules: FieldRules;
  /**
   * Whether every event of the kind is about a patron, whatever it carries (a deleted user is
   * `user: {}`): its body is sealed in the history and a viewer sees it masked.
   */
  readonly patron: boolean;
  /**
   * Paths that name or reach a person (a patron's id, name, e-mail, phone, address, PIN, birth
   * date, identifiers, free text about them), wherever a person appears in the subject. The one
   * list masking, hashing and forgetting use (src/events/personal-fields.ts).
   */
  readonly personal: readonly string[];
  /**
   * Paths known to hold no person (ids of records, codes, times, titles, barcodes, libraries,
   * statuses, descriptions of records): all a viewer sees of the subject, every other field
   * masked (src/events/kinds/only-safe-fields.ts). A path to an object keeps it whole: name only
   * objects that hold no one (a code, a record). No `**`, and no path of `personal`.
   */
  readonly safe: readonly string[];
  /** The identifiers of the records the event is about. */
  readonly identifiers: {
    /** What a thin payload (`send: { shape: ids }`) keeps: enough to fetch the rest (spec §4). */
    readonly thin: readonly string[];
    /** What the history is searched by, by column (a personal value is never taken). */
    readonly history: Readonly<Partial<Record<RecordColumn, readonly string[]>>>;
  };
  /** The CLI's samples of the kind by name, its own name first (`job_end`, `job_end_minimal`). */
  readonly samples: Readonly<Record<string, SampleBody>>;
}

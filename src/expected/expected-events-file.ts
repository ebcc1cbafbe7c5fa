import { z } from 'zod';
import { InstitutionCode } from '../institutions/institutions-file';
import { duplicateEntries } from '../startup/duplicate-entries';
import { ruleOfIssue } from '../startup/rule-of-issue';
import { StartupFileError, namingPath } from '../startup/startup-file-error';
import { readFileText, yamlTreeOf } from '../startup/yaml-file';

/**
 * One rule of EXPECTED_EVENTS_FILE: at least one job_end of a job (by its id or its name), or at
 * least one event of a kind (its canonical action), every `everyHours` hours.
 */
export const ExpectedEvent = z
  .strictObject({
    /** Whose events; absent: every institution of the worker, each on its own. */
    institution: InstitutionCode.optional(),
    /** A job id (`S7781`) or a job name (`Import MARC records`), case-insensitive. */
    jobEnd: z.string().trim().min(1).max(200).optional(),
    /** An event kind as the worker sees it: `loan`, `job_end`, `user`… */
    kind: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9_.-]{1,64}$/, 'an event kind (letters, digits, _ . -)')
      .optional(),
    everyHours: z
      .number()
      .positive()
      .max(24 * 366),
  })
  .refine((rule) => (rule.jobEnd === undefined) !== (rule.kind === undefined), {
    message: 'one of jobEnd or kind',
  });
export type ExpectedEvent = z.infer<typeof ExpectedEvent>;

export const ExpectedEventsFile = z
  .strictObject({ expected: z.array(ExpectedEvent).max(500) })
  .superRefine(uniqueRules);
export type ExpectedEventsFile = z.infer<typeof ExpectedEventsFile>;

/** The `rule` label of a rule: `job_end:<job>` or `kind:<kind>`, as the file names it. */
export function ruleName(rule: ExpectedEvent): string {
  return rule.jobEnd === undefined ? `kind:${rule.kind ?? ''}` : `job_end:${rule.jobEnd}`;
}

/**
 * The name a rule expects an event by (its `jobEnd`: a job's id or name), in lower case; undefined
 * for a rule that expects a kind. Which events bear that name, their handler entry says.
 */
export function expectedNameOf(rule: ExpectedEvent): string | undefined {
  return rule.jobEnd?.toLowerCase();
}

/**
 * Two rules for one job (its id or name, in any case) or one kind, of one institution (or both of
 * none): two figures for one expectation, or one hiding the other where both keep their state
 * under one label (ruleName) in Redis and in the metric. Refused, naming both.
 */
function uniqueRules(file: { expected: readonly ExpectedEvent[] }, context: z.RefinementCtx): void {
  const keyOf = (rule: ExpectedEvent) =>
    `${rule.institution ?? ''}\n${ruleName(rule).toLowerCase()}`;
  for (const { index, first } of duplicateEntries(file.expected, keyOf)) {
    const field = file.expected[index]?.jobEnd === undefined ? 'kind' : 'jobEnd';
    context.addIssue({
      code: 'custom',
      path: ['expected', index],
      message: `the same rule as rule #${String(first + 1)} (its ${field} and institution): one rule for each`,
    });
  }
}

/** How the expected events file's problems start: `invalid expected events file: …`. */
const FILE = 'expected events file';

/**
 * Reads EXPECTED_EVENTS_FILE at start-up; a problem stops the start naming the file's path, the
 * rule and the field.
 */
export function loadExpectedEventsFile(path: string): ExpectedEventsFile {
  return namingPath(path, () => parseExpectedEventsFile(readFileText(path, FILE)));
}

export function parseExpectedEventsFile(text: string): ExpectedEventsFile {
  const result = ExpectedEventsFile.safeParse(yamlTreeOf(text, FILE));
  if (!result.success) {
    throw new StartupFileError(
      FILE,
      result.error.issues.map((issue) => {
        const [, index, ...field] = issue.path;
        const where =
          typeof index === 'number'
            ? `rule #${String(index + 1)}`
            : issue.path.map(String).join('.');
        const named = field.length === 0 ? where : `${where}: ${field.map(String).join('.')}`;
        return `${named || '(file)'}: ${ruleOfIssue(issue)}`;
      }),
    );
  }
  return result.data;
}

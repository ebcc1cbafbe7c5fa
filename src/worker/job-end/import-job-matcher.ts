import type { JobInstance } from '@svcws/client';

/** The fields IMPORT_JOB_MATCH can test, read from the instance's `job_info`. */
const FIELDS = ['category', 'type', 'name'] as const;
type MatchField = (typeof FIELDS)[number];

interface MatchRule {
  readonly field: MatchField;
  /** `=`: the whole value, case-insensitive; `~`: contains, case-insensitive. */
  readonly op: '=' | '~';
  readonly text: string;
}

/** True when the instance belongs to a metadata-import job (one that loads records). */
export type ImportJobMatcher = (instance: JobInstance) => boolean;

/**
 * Parses IMPORT_JOB_MATCH (.env.example): alternatives separated by `|`, each `field=value` or
 * `field~text`, over the job's category, type and name. Any alternative that holds is a match.
 * Throws a RangeError naming the bad alternative, so a typo stops the worker at start-up instead
 * of silently matching nothing.
 */
export function createImportJobMatcher(spec: string): ImportJobMatcher {
  const rules = spec.split('|').map((part) => parseRule(part.trim()));
  return (instance) => {
    const values = fieldValues(instance);
    return rules.some((rule) => {
      const value = values[rule.field];
      if (value === undefined) return false;
      return rule.op === '=' ? value === rule.text : value.includes(rule.text);
    });
  };
}

function parseRule(part: string): MatchRule {
  const match = /^([a-z_]+)\s*([=~])\s*(.+)$/i.exec(part);
  const field = match?.[1]?.toLowerCase();
  const op = match?.[2];
  const text = match?.[3]?.trim().toLowerCase();
  if (!isField(field) || (op !== '=' && op !== '~') || text === undefined || text === '') {
    throw new RangeError(
      `IMPORT_JOB_MATCH: "${part}" is not field=value or field~text over ${FIELDS.join(', ')}`,
    );
  }
  return { field, op, text };
}

function isField(value: string | undefined): value is MatchField {
  return (FIELDS as readonly string[]).includes(value ?? '');
}

/** The job's name is `job_info.name`; without it, the instance name starts with it. */
function fieldValues(instance: JobInstance): Partial<Record<MatchField, string>> {
  const info = instance.job_info;
  const name = info?.name ?? instance.name;
  return {
    ...(info?.category ? { category: info.category.value.toLowerCase() } : {}),
    ...(info?.type ? { type: info.type.value.toLowerCase() } : {}),
    ...(name !== undefined ? { name: name.toLowerCase() } : {}),
  };
}

import { parseExpectedEventsFile, ruleName } from '../../../src/expected/expected-events-file';
import { meets as meetsWith } from '../../../src/expected/expected-events-watch';
import type { ExpectedEvent } from '../../../src/expected/expected-events-file';
import { handlerEntries } from '../../../src/handlers/handler-entries';
import { StartupFileError } from '../../../src/startup/startup-file-error';

const nightly = { jobEnd: 'S7781', everyHours: 24 };

/** As the worker asks: through the handler list production uses. */
function meets(rule: ExpectedEvent, action: string, data: unknown): boolean {
  return meetsWith(rule, action, data, handlerEntries);
}

describe('EXPECTED_EVENTS_FILE', () => {
  it('reads rules by job and by kind, named for the rule label', () => {
    const file = parseExpectedEventsFile(
      'expected:\n  - { institution: 01A, jobEnd: S7781, everyHours: 24 }\n  - { kind: LOAN, everyHours: 6 }\n',
    );
    expect(file.expected.map(ruleName)).toEqual(['job_end:S7781', 'kind:loan']);
  });

  it('refuses a rule with both jobEnd and kind, or neither, naming the rule', () => {
    const bad = () =>
      parseExpectedEventsFile(
        'expected:\n  - { jobEnd: S7781, kind: loan, everyHours: 1 }\n  - { everyHours: 2 }\n',
      );
    expect(bad).toThrow(StartupFileError);
    expect(bad).toThrow(/rule #1: one of jobEnd or kind; rule #2: one of jobEnd or kind/);
  });

  it('refuses a rule repeated for one institution (a job by id in any case, a kind), naming both', () => {
    const bad = () =>
      parseExpectedEventsFile(
        [
          'expected:',
          '  - { institution: 01A, jobEnd: S7781, everyHours: 24 }',
          '  - { kind: loan, everyHours: 6 }',
          '  - { institution: 01A, jobEnd: s7781, everyHours: 12 }',
          '  - { kind: LOAN, everyHours: 2 }',
          '',
        ].join('\n'),
      );

    expect(bad).toThrow(StartupFileError);
    expect(bad).toThrow(
      'rule #3: the same rule as rule #1 (its jobEnd and institution): one rule for each; ' +
        'rule #4: the same rule as rule #2 (its kind and institution): one rule for each',
    );
  });

  it('takes one job or kind in rules of different institutions, or of a kind and a job', () => {
    const file = parseExpectedEventsFile(
      [
        'expected:',
        '  - { institution: 01A, jobEnd: S7781, everyHours: 24 }',
        '  - { institution: 01B, jobEnd: S7781, everyHours: 24 }',
        '  - { jobEnd: S7781, everyHours: 48 }',
        '  - { kind: job_end, everyHours: 24 }',
        '',
      ].join('\n'),
    );

    expect(file.expected).toHaveLength(4);
  });

  it('refuses a rule without a positive everyHours', () => {
    expect(() => parseExpectedEventsFile('expected:\n  - { kind: loan, everyHours: 0 }\n')).toThrow(
      /rule #1: everyHours/,
    );
  });
});

describe('an event meets a rule', () => {
  it('by the job id of its job_info or its link', () => {
    expect(
      meets(nightly, 'job_end', { job_instance: { id: '1', job_info: { id: 'S7781' } } }),
    ).toBe(true);
    const link = 'https://x/svcws/v1/conf/jobs/S7781/instances/1';
    expect(meets(nightly, 'job_end', { job_instance: { id: '1', link } })).toBe(true);
    expect(
      meets(nightly, 'job_end', { job_instance: { id: '1', job_info: { id: 'S7782' } } }),
    ).toBe(false);
  });

  it('by the job name, or the instance name that starts with it, case-insensitive', () => {
    const byName = { jobEnd: 'Import MARC records', everyHours: 24 };
    expect(
      meets(byName, 'job_end', {
        job_instance: { id: '1', job_info: { name: 'import marc records' } },
      }),
    ).toBe(true);
    expect(
      meets(byName, 'job_end', {
        job_instance: { id: '1', name: 'Import MARC records - 11/06/2024 10:14' },
      }),
    ).toBe(true);
    expect(
      meets(byName, 'job_end', {
        job_instance: { id: '1', name: 'Import MARC records extra - 11/06' },
      }),
    ).toBe(false);
  });

  it('by its kind; a job rule never by another kind', () => {
    expect(meets({ kind: 'loan', everyHours: 1 }, 'loan', {})).toBe(true);
    expect(meets({ kind: 'loan', everyHours: 1 }, 'bib', {})).toBe(false);
    expect(meets(nightly, 'loan', { job_instance: { id: '1', job_info: { id: 'S7781' } } })).toBe(
      false,
    );
  });
});

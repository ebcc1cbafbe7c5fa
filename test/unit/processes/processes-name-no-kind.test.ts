import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventKinds } from '../../../src/events/kinds/event-kinds';

const PROCESSES = join(__dirname, '../../../src/processes');

/** 'job_end' → ['jobEnd', 'JobEnd', 'job-end']: the names a kind's room and code go by. */
function codeNamesOf(name: string): string[] {
  const parts = name.split('_');
  const camel = parts.map((part, index) => (index === 0 ? part : capitalized(part))).join('');
  return parts.length < 2 ? [] : [camel, capitalized(camel), parts.join('-')];
}

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Every kind's action, subject key and code names, each as a pattern over a file's text. */
function kindPatterns(): { kind: string; pattern: RegExp }[] {
  return eventKinds.flatMap((kind) => [
    // A word of its own: `product-user-agent` names no `user`, `LOAN` and 'loan' do name one.
    ...[kind.name, kind.subject].map((word) => ({
      kind: kind.name,
      pattern: new RegExp(`(?<![A-Za-z0-9_-])${word}(?![A-Za-z0-9_-])`, 'i'),
    })),
    ...codeNamesOf(kind.name).map((word) => ({ kind: kind.name, pattern: new RegExp(word) })),
  ]);
}

/** The kinds a text names, with the pattern that found each. */
function kindsNamedIn(text: string): string[] {
  return kindPatterns()
    .filter(({ pattern }) => pattern.test(text))
    .map(({ kind, pattern }) => `${kind} (${String(pattern)})`);
}

describe('the processes room', () => {
  it('finds a kind named in any of its forms (the check below can fail)', () => {
    expect(
      kindsNamedIn("import { withJobEndOnce } from '../worker/job-end/job-end-once';"),
    ).toEqual(expect.arrayContaining([expect.stringContaining('job_end')]));
    expect(kindsNamedIn("if (job.name === 'LOAN') return;")).toEqual([
      expect.stringContaining('loan'),
    ]);
    expect(
      kindsNamedIn("import { productUserAgent } from '../routes/product-user-agent';"),
    ).toEqual([]);
  });

  it('names no event kind in any of its files: it iterates the handler entries', () => {
    const files = readdirSync(PROCESSES).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    const named = files.flatMap((file) =>
      kindsNamedIn(readFileSync(join(PROCESSES, file), 'utf8')).map((kind) => `${file}: ${kind}`),
    );
    expect(named).toEqual([]);
  });
});

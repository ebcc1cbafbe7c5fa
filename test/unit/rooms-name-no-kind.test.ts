import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventKinds } from '../../src/events/kinds/event-kinds';

const SRC = join(__dirname, '../../src');

/** 'job_end' → ['jobEnd', 'JobEnd', 'job-end']: the names a kind's room and code go by. */
function codeNamesOf(name: string): string[] {
  const parts = name.split('_');
  const camel = parts.map((part, index) => (index === 0 ? part : capitalized(part))).join('');
  return parts.length < 2 ? [] : [camel, capitalized(camel), parts.join('-')];
}

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

const word = (text: string, flags = ''): RegExp =>
  new RegExp(`(?<![A-Za-z0-9_-])${text}(?![A-Za-z0-9_-])`, flags);

/** Every kind's action, subject key and code names, each as a pattern over a file's text. */
function kindPatterns(): { kind: string; pattern: RegExp }[] {
  return eventKinds.flatMap((kind) => [
    // A word of its own: `product-user-agent` names no `user`, `LOAN` and 'loan' do name one.
    ...[kind.name, kind.subject].map((name) => ({ kind: kind.name, pattern: word(name, 'i') })),
    ...codeNamesOf(kind.name).map((name) => ({ kind: kind.name, pattern: new RegExp(name) })),
  ]);
}

/**
 * The same, less the one-word names in lower case: the history and the worker speak of a person
 * (`user`), a search filter (`--loan`, `--request`) and a list's `item` in those words. A kind is
 * still found by its action as the platform sends it (`LOAN`), a subject key of several words
 * (`item_loan`) and a kind of several words in any of its forms (`job_end`, `jobEnd`, `job-end`).
 */
function kindPatternsOfWords(): { kind: string; pattern: RegExp }[] {
  return eventKinds.flatMap((kind) => [
    { kind: kind.name, pattern: word(kind.name.toUpperCase()) },
    ...[kind.name, kind.subject]
      .filter((name) => name.includes('_'))
      .map((name) => ({ kind: kind.name, pattern: word(name, 'i') })),
    ...codeNamesOf(kind.name).map((name) => ({ kind: kind.name, pattern: new RegExp(name) })),
  ]);
}

type Patterns = { kind: string; pattern: RegExp }[];

/** The kinds a text names, with the pattern that found each. */
function kindsNamedIn(text: string, patterns: Patterns = kindPatterns()): string[] {
  return patterns
    .filter(({ pattern }) => pattern.test(text))
    .map(({ kind, pattern }) => `${kind} (${String(pattern)})`);
}

/** The kinds each `.ts` file of a room names (its sub-rooms not read), as `file: kind`. */
function kindsNamedInRoom(room: string, patterns: Patterns, except: readonly string[] = []) {
  const files = readdirSync(join(SRC, room)).filter(
    (file) => file.endsWith('.ts') && !except.includes(file),
  );
  expect(files.length).toBeGreaterThan(0);
  return files.flatMap((file) =>
    kindsNamedIn(readFileSync(join(SRC, room, file), 'utf8'), patterns).map(
      (kind) => `${room}/${file}: ${kind}`,
    ),
  );
}

describe('the rooms that run every kind name none', () => {
  it('finds a kind named in any of its forms (the checks below can fail)', () => {
    expect(kindsNamedIn("import { jobEndOnce } from '../worker/job-end/job-end-once';")).toEqual(
      expect.arrayContaining([expect.stringContaining('job_end')]),
    );
    expect(kindsNamedIn("if (job.name === 'LOAN') return;")).toEqual([
      expect.stringContaining('loan'),
    ]);
    expect(
      kindsNamedIn("import { productUserAgent } from '../routes/product-user-agent';"),
    ).toEqual([]);
    const words = kindPatternsOfWords();
    expect(kindsNamedIn("type: z.literal('job_end'),", words)).toEqual(
      expect.arrayContaining([expect.stringContaining('job_end')]),
    );
    expect(kindsNamedIn('const subject = event.item_loan;', words)).toEqual([
      expect.stringContaining('loan'),
    ]);
    expect(kindsNamedIn("case 'LOAN':", words)).toEqual([expect.stringContaining('loan')]);
    expect(
      kindsNamedIn('filters.user ?? filters.loan; for (const item of page.items)', words),
    ).toEqual([]);
  });

  it('processes/ names no event kind in any of its files: it iterates the handler entries', () => {
    expect(kindsNamedInRoom('processes', kindPatterns())).toEqual([]);
  });

  it('worker/ names none outside its kind rooms and the handler list (the one place that does)', () => {
    expect(kindsNamedInRoom('worker', kindPatternsOfWords(), ['handler-entries.ts'])).toEqual([]);
  });

  it('history/ names none: outcomes and the journey are generic (the entries fill them)', () => {
    // outcome-record-before-1.ts reads the records an older worker left in the outbox, whose
    // type was the one kind that had an outcome then.
    expect(
      kindsNamedInRoom('history', kindPatternsOfWords(), ['outcome-record-before-1.ts']),
    ).toEqual([]);
  });
});

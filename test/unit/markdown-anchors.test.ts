import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = join(__dirname, '../..');

/** README.md and every docs/*.md (docs/console/ too). */
function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join(entry.parentPath, entry.name));
  return [join(ROOT, 'README.md'), ...docs];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`. */
function slugOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a file's headings; a repeated one gets `-1`, `-2`… as on GitHub. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (heading?.[1] === undefined) continue;
    const slug = slugOf(heading[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${String(count)}`);
  }
  return anchors;
}

/** `[text](other.md#part)` and `[text](#part)`: links with a fragment into a local md file. */
function brokenAnchorsIn(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\]\(([^)\s#]*\.md|)#([^)\s]+)\)/g)].flatMap((match) => {
    const target = match[1] === '' ? file : join(dirname(file), match[1] ?? '');
    const fragment = decodeURIComponent(match[2] ?? '');
    if (!existsSync(target)) return [`${relative(ROOT, file)}: ${match[0]} (no such file)`];
    return anchorsOf(target).has(fragment) ? [] : [`${relative(ROOT, file)}: ${match[0]}`];
  });
}

describe('Markdown links to a heading of a local page', () => {
  it('reads an anchor as GitHub makes it, and finds one that names no heading', () => {
    expect(slugOf('When Redis or PostgreSQL is away')).toBe('when-redis-or-postgresql-is-away');
    expect(slugOf('§4.3 Jobs: `job_end`')).toBe('43-jobs-job_end');
    const readme = join(ROOT, 'README.md');
    expect(anchorsOf(readme).has('no-such-heading-anywhere')).toBe(false);
  });

  it('points every #fragment of README.md and docs/ at a heading that exists', () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap(brokenAnchorsIn)).toEqual([]);
  });
});

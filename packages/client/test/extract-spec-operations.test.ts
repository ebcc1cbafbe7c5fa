import { extractSpecOperations } from '../scripts/extract-spec-operations';

/** A §4 in the spec's own form: row tables, a "see below" row and named shared code tables. */
const MARKDOWN = [
  '# Interface',
  '## 3. States',
  '| GET P/not/in/section/four | none | x | 1234567 |',
  '## 4. Endpoints',
  '### 4.3 Jobs',
  '| Method and path | Query parameters / request body | Response | 400 codes |',
  '|---|---|---|---|',
  '| GET P/conf/jobs/{job_id} | none | job | 402215 bad job id format; 402216 invalid job id |',
  '| POST P/conf/jobs/{job_id} | op (string, required); body required: job | job | see below |',
  '',
  'Job submit 400 codes:',
  '',
  '| Code | Meaning |',
  '|---|---|',
  '| 402222, 402223 | execution threshold reached |',
  '| 60347 | job overlaps a running job |',
  '',
  '### 4.12 Licenses',
  '| PUT P/acq/licenses/{code} | body required: license | license | license save codes plus 60202 not updated |',
  '| POST P/acq/licenses/{code}/amendments | body required: license | license | license save codes plus 60196 (60220 is not listed here) |',
  '',
  'License save codes (create and update):',
  '',
  '| Code | Meaning |',
  '|---|---|',
  '| 60186 | name required |',
  '| 60220 | administrator not valid (license create and update only) |',
  '| 402119 | general error (update operations) |',
  '',
  '## 5. Authentication',
  '| GET P/after/section/four | none | x | 7654321 |',
].join('\n');

describe('extracting the spec operations (packages/client/scripts/extract-spec-operations.ts)', () => {
  const extracted = extractSpecOperations(MARKDOWN, 'sample');

  it('reads only the rows of section 4, with their section, method, path and cells', () => {
    const rows = extracted.operations.map(({ section, route, method, path }) => ({
      section,
      route,
      method,
      path,
    }));

    expect(rows).toEqual([
      {
        section: '4.3',
        route: 'GET /conf/jobs/{job_id}',
        method: 'GET',
        path: '/conf/jobs/{job_id}',
      },
      {
        section: '4.3',
        route: 'POST /conf/jobs/{job_id}',
        method: 'POST',
        path: '/conf/jobs/{job_id}',
      },
      {
        section: '4.12',
        route: 'PUT /acq/licenses/{code}',
        method: 'PUT',
        path: '/acq/licenses/{code}',
      },
      {
        section: '4.12',
        route: 'POST /acq/licenses/{code}/amendments',
        method: 'POST',
        path: '/acq/licenses/{code}/amendments',
      },
    ]);
    expect(extracted.operations[1]?.parameters).toBe('op (string, required); body required: job');
  });

  it('resolves "see below" to the next shared table, and a named table by its name', () => {
    const codes = extracted.operations.map((row) => row.codes);

    expect(codes).toEqual([
      ['402215', '402216'],
      ['402222', '402223', '60347'],
      // PUT: the update-only general error counts; 60220 is listed.
      ['402119', '60186', '60202', '60220'],
      // POST: no update-only code, and "(60220 is not listed here)" removes it.
      ['60186', '60196'],
    ]);
  });

  it('lists the shared code tables with each code of a combined row', () => {
    const tables = extracted.sharedCodeTables.map((table) => [table.name, table.codes.length]);

    expect(tables).toEqual([
      ['job submit 400 codes', 3],
      ['license save codes', 3],
    ]);
  });
});

import { HttpDestinationOptions } from 'svcws-listener';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { StartupFileError } from '../../../src/startup/startup-file-error';

/** The problems a worker would refuse to start with, for one route `hook` with this URL. */
function problemsOf(url: string): readonly string[] {
  try {
    parseRoutesFile(
      `routes:\n  - name: fine\n    to: { http: { url: "https://ok.example.org/a/{id}" } }\n` +
        `  - name: hook\n    to: { http: { url: ${JSON.stringify(url)} } }\n`,
      {},
    );
  } catch (error) {
    if (error instanceof StartupFileError) return error.problems;
    throw error;
  }
  return [];
}

const REFUSED =
  'route "hook": to.http.url: templates ({field}) only in the path or query: the scheme, user, ' +
  'host and port must be written out in plain characters, ending with / ? or # before the first template';

describe('http destination: the host is literal', () => {
  it.each([
    ['a template as the host', 'https://{institution}.example.org/in'],
    ['a template in the port', 'http://hooks.example.org:{item_loan.loan_id}/in'],
    ['a template in the user info', 'https://{item_loan.user_id}@hooks.example.org/in'],
    ['a template in the scheme', '{event}://hooks.example.org/in'],
    ['an empty authority (WHATWG reads the template as the host)', 'http:///{id}/x'],
    ['no slashes at all', 'http:{id}'],
    ['one slash', 'http:/{id}/x'],
    ['backslashes for slashes', 'http:\\\\{id}/x'],
    ['a backslash ending the host', 'http://hooks.example.org\\{id}'],
    ['a mix of slash and backslash', 'http:/\\{id}/x'],
    ['four slashes', 'http:////{id}/x'],
    ['a tab in the host, which parsers strip', 'http://hooks.exa\tmple.org/{id}'],
    ['a line break before the template', 'http://hooks.example.org\n{id}/x'],
    ['percent-encoding in the host', 'http://hooks%2eexample.org/{id}'],
    ['the template glued to the host', 'http://hooks.example.org{id}/x'],
    ['a space in the host', 'http://hooks example.org/{id}'],
  ])('refuses %s, naming the route; the exported schema refuses it too', (_case, url) => {
    // One problem, naming the route; the route with a template in its path only is fine.
    expect(problemsOf(url)).toEqual([REFUSED]);
    // One rule for the loader and the public schema (src/index.ts): a user of the package
    // checking a destination gets the loader's answer.
    const alone = HttpDestinationOptions.safeParse({ url });
    expect(alone.success).toBe(false);
    expect(alone.error?.issues.map((issue) => issue.message)).toEqual([
      REFUSED.replace('route "hook": to.http.url: ', ''),
    ]);
  });

  it.each([
    ['a path template', 'https://hooks.example.org/loans/{item_loan.loan_id}'],
    ['a query template', 'https://hooks.example.org/in?loan={item_loan.loan_id}'],
    ['user info, port and a path template', 'https://bot:pw@hooks.example.org:8443/{id}'],
    ['an IPv6 host and a path template', 'http://[::1]:8080/{id}'],
    ['no template at all', 'http://127.0.0.1:9000/in'],
  ])('accepts %s', (_case, url) => {
    expect(problemsOf(url)).toEqual([]);
  });
});

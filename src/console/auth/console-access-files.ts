import { z } from 'zod';
import { secretsMatch, tokenDigest } from '../../http/token-matcher';
import { ruleOfIssue } from '../../startup/rule-of-issue';
import { StartupFileError, namingPath } from '../../startup/startup-file-error';
import { readFileText } from '../../startup/yaml-file';
import { yamlTreeWithLines } from '../../startup/yaml-tree-with-lines';
import { PrincipalGrant } from './principal';
import type { Principal } from './principal';

/** CONSOLE_TOKENS_FILE: only each token's SHA-256 is on disk (`npm run events -- console-token`). */
export const ConsoleTokensFile = z.strictObject({
  tokens: z.array(
    PrincipalGrant.extend({
      name: z.string().min(1).max(100),
      sha256: z.string().regex(/^[0-9a-f]{64}$/, '64 lower-case hex digits'),
    }),
  ),
});
export type ConsoleTokensFile = z.infer<typeof ConsoleTokensFile>;

/** CONSOLE_ROLES_FILE: the identity the trusted proxy sends → a role (and an institution). */
export const ConsoleRolesFile = z.strictObject({
  identities: z.array(PrincipalGrant.extend({ identity: z.string().min(1).max(320) })),
});
export type ConsoleRolesFile = z.infer<typeof ConsoleRolesFile>;

/** What each entry of an access file is, in the words its problems end with. */
const EXPECTED_ENTRY = {
  tokens:
    'expected an entry `- { name: <name>, sha256: <64 hex digits: the token’s SHA-256, never the token>, role: viewer|operator }` (and `institution: <code>` to hold it to one); `npm run events -- console-token` prints one',
  identities:
    'expected an entry `- { identity: <the identity the proxy sends>, role: viewer|operator }` (and `institution: <code>` to hold it to one)',
} as const;

/**
 * A problem of an access file: its line, the place (`tokens.2.sha256`), the rule broken and the
 * entry expected there. Never the value: a token pasted where its hash belongs stays unprinted.
 */
function problemOf(
  issue: z.core.$ZodIssue,
  lineOf: (path: readonly PropertyKey[]) => number,
  list: keyof typeof EXPECTED_ENTRY,
): string {
  const at = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  const place = issue.path.length === 0 ? 'the file' : issue.path.join('.');
  const expected =
    issue.path.length <= 1 ? `expected \`${list}:\` and a list under it` : EXPECTED_ENTRY[list];
  return `line ${String(lineOf(at))}: ${place}: ${ruleOfIssue(issue)}; ${expected}`;
}

/**
 * One of the console's access files, read at start-up; a problem stops the start
 * (StartupFileError naming the file's path and each problem's line).
 */
function readYaml<S extends z.ZodType>(
  path: string,
  file: string,
  schema: S,
  list: keyof typeof EXPECTED_ENTRY,
): z.infer<S> {
  return namingPath(path, () => {
    const { tree, lineOf } = yamlTreeWithLines(readFileText(path, file), file);
    const result = schema.safeParse(tree);
    if (!result.success) {
      throw new StartupFileError(
        file,
        result.error.issues.map((issue) => problemOf(issue, lineOf, list)),
      );
    }
    return result.data;
  });
}

export function loadConsoleTokensFile(path: string): ConsoleTokensFile {
  return readYaml(path, 'console tokens file', ConsoleTokensFile, 'tokens');
}

export function loadConsoleRolesFile(path: string): ConsoleRolesFile {
  return readYaml(path, 'console roles file', ConsoleRolesFile, 'identities');
}

/** The principal a raw token stands for; digests of one length compare in constant time. */
export function principalOfToken(file: ConsoleTokensFile, token: string): Principal | undefined {
  const given = tokenDigest(token);
  const found = file.tokens.find((entry) => secretsMatch(given, Buffer.from(entry.sha256, 'hex')));
  if (found === undefined) return undefined;
  return { name: found.name, role: found.role, institution: found.institution, via: 'bearer' };
}

export function principalOfIdentity(
  file: ConsoleRolesFile,
  identity: string,
): Principal | undefined {
  const found = file.identities.find((entry) => entry.identity === identity);
  if (found === undefined) return undefined;
  return { name: identity, role: found.role, institution: found.institution, via: 'proxy' };
}

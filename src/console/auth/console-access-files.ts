import { z } from 'zod';
import { secretsMatch, tokenDigest } from '../../http/token-matcher';
import { ruleOfIssue } from '../../startup/rule-of-issue';
import { StartupFileError, namingPath } from '../../startup/startup-file-error';
import { readFileText, yamlTreeOf } from '../../startup/yaml-file';
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

/** One of the console's access files, read at start-up; a problem stops the start (StartupFileError). */
function readYaml<S extends z.ZodType>(path: string, file: string, schema: S): z.infer<S> {
  const tree = yamlTreeOf(readFileText(path, file), file);
  const result = schema.safeParse(tree);
  if (!result.success) {
    throw new StartupFileError(
      file,
      result.error.issues.map((issue) => `${issue.path.join('.')}: ${ruleOfIssue(issue)}`),
    );
  }
  return result.data;
}

export function loadConsoleTokensFile(path: string): ConsoleTokensFile {
  return readYaml(path, 'console tokens file', ConsoleTokensFile);
}

/** A problem names the file's path (the tokens file's does not yet). */
export function loadConsoleRolesFile(path: string): ConsoleRolesFile {
  return namingPath(path, () => readYaml(path, 'console roles file', ConsoleRolesFile));
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

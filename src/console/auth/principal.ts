import { z } from 'zod';
import { InstitutionCode } from '../../institutions/institutions-file';

/** viewer: read (patron fields masked); operator: pause, resume, replay, remove, forget. */
export const ConsoleRole = z.enum(['viewer', 'operator']);
export type ConsoleRole = z.infer<typeof ConsoleRole>;

/** Who is signed in: from a token of CONSOLE_TOKENS_FILE or an identity the trusted proxy sent. */
export interface Principal {
  readonly name: string;
  readonly role: ConsoleRole;
  /** Set: sees and acts on this institution only (a consortium member's staff). */
  readonly institution?: string | undefined;
  /** Where it came from: a Bearer token, a session cookie (sign-in), the trusted proxy. */
  readonly via: 'bearer' | 'session' | 'proxy';
}

export const PrincipalGrant = z.strictObject({
  role: ConsoleRole,
  institution: InstitutionCode.optional(),
});

/** Whether the principal may see something of `institution` (undefined: not tied to one). */
export function seesInstitution(principal: Principal, institution: string | undefined): boolean {
  return principal.institution === undefined || principal.institution === institution;
}

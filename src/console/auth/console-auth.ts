import { createHmac, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { secretsMatch, sha256Hex } from '../../http/token-matcher';
import { principalOfIdentity, principalOfToken } from './console-access-files';
import type { ConsoleRolesFile, ConsoleTokensFile } from './console-access-files';
import type { Principal } from './principal';
import { createSessionStore } from './session-store';
import type { SessionStore } from './session-store';

export const SESSION_COOKIE = 'console_session';

export interface ConsoleAuthOptions {
  readonly tokens: ConsoleTokensFile;
  /** CONSOLE_ROLES_FILE: identities the trusted proxy may send; undefined: no proxy sign-in. */
  readonly roles?: ConsoleRolesFile | undefined;
  /** CONSOLE_TRUSTED_PROXY: only a request from one of these addresses may carry an identity. */
  readonly trustedProxies: readonly string[];
  /** CONSOLE_IDENTITY_HEADER, e.g. X-Forwarded-User (oauth2-proxy) or X-Remote-User. */
  readonly identityHeader: string;
  readonly sessionTtlMs: number;
  /** CONSOLE_MAX_SESSIONS: live sessions at most (session-store.ts: the oldest ends beyond it). */
  readonly maxSessions: number;
  /** How often expired sessions are swept from memory; a minute unless told. */
  readonly sweepEveryMs?: number;
  readonly now?: () => number;
}

/** What the sign-in steps share: the sessions of this process and the key of its CSRF tokens. */
interface AuthState {
  readonly options: ConsoleAuthOptions;
  readonly now: () => number;
  /** Keyed by the SHA-256 of the session cookie. */
  readonly sessions: SessionStore;
  /** Made at start: the HMAC key of CSRF tokens. */
  readonly key: Buffer;
  /** The identity header's name, lower case as Node keeps headers. */
  readonly header: string;
}

/**
 * Who is asking: a bearer token (the API), an identity from the trusted proxy, or a session cookie
 * set by /sign-in. Sessions live in this process (a restart signs everyone out) and are keyed by
 * the cookie's hash, so not even memory holds a usable cookie. CSRF tokens are an HMAC of the
 * session (or the proxy identity) with a key made at start: nothing to store, and a page of one
 * session is useless to another.
 */
export function createConsoleAuth(options: ConsoleAuthOptions) {
  const now = options.now ?? Date.now;
  const state: AuthState = {
    options,
    now,
    sessions: createSessionStore({
      maxSessions: options.maxSessions,
      sweepEveryMs: options.sweepEveryMs ?? 60_000,
      now,
    }),
    key: randomBytes(32),
    header: options.identityHeader.toLowerCase(),
  };
  return {
    principalOf: (req: Request): Principal | undefined => principalOf(state, req),
    /**
     * Whether a state-changing request of this principal must carry the CSRF token: always, unless
     * the principal came from a Bearer token. A cookie or the proxy's identity is what a browser
     * sends by itself on a cross-site form post, whatever other header (Basic auth) rides along.
     */
    needsCsrf: (principal: Principal): boolean => principal.via !== 'bearer',
    /** Bearer tokens sent with a request, right or wrong (the guesses' limit counts them). */
    bearerOf: (req: Request): string | undefined => bearerOf(req),
    /** Live sessions held in memory (expired ones not yet swept included). */
    sessionCount: (): number => state.sessions.size(),
    /** Stops the sweep timer (the console's shutdown). */
    close: (): void => {
      state.sessions.close();
    },
    signIn: (token: string) => signIn(state, token),
    signOut(req: Request): void {
      const found = sessionOf(state, req);
      if (found !== undefined) state.sessions.delete(found.id);
    },
    csrfTokenOf: (req: Request): string => csrfTokenOf(state, req),
    csrfHolds(req: Request, given: unknown): boolean {
      const expected = Buffer.from(csrfTokenOf(state, req));
      const sent = Buffer.from(typeof given === 'string' ? given : '');
      return expected.length > 0 && secretsMatch(sent, expected);
    },
  };
}
export type ConsoleAuth = ReturnType<typeof createConsoleAuth>;

function bearerOf(req: Request): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
}

/** Bearer first (scripts), then the proxy's identity, then the session cookie. */
function principalOf(state: AuthState, req: Request): Principal | undefined {
  const bearer = bearerOf(req);
  if (bearer !== undefined) return principalOfToken(state.options.tokens, bearer);
  const proxy = fromProxy(state, req);
  if (proxy !== undefined) return proxy.principal;
  return sessionOf(state, req)?.session.principal;
}

function fromProxy(
  { options, header }: AuthState,
  req: Request,
): { principal: Principal | undefined; identity: string } | undefined {
  const identity = req.headers[header];
  if (typeof identity !== 'string' || identity === '' || options.roles === undefined)
    return undefined;
  if (!options.trustedProxies.includes(addressOf(req))) return undefined;
  return { principal: principalOfIdentity(options.roles, identity), identity };
}

function sessionOf(
  state: AuthState,
  req: Request,
): { id: string; session: { principal: Principal } } | undefined {
  const cookie = cookieOf(req, SESSION_COOKIE);
  if (cookie === undefined) return undefined;
  const id = sha256Hex(cookie);
  const session = state.sessions.get(id);
  return session === undefined ? undefined : { id, session };
}

function signIn(
  state: AuthState,
  token: string,
): { cookie: string; principal: Principal; maxAgeMs: number } | undefined {
  const found = principalOfToken(state.options.tokens, token);
  if (found === undefined) return undefined;
  const principal: Principal = { ...found, via: 'session' };
  const cookie = randomBytes(32).toString('base64url');
  const ttl = state.options.sessionTtlMs;
  state.sessions.add(sha256Hex(cookie), { principal, expiresAt: state.now() + ttl });
  return { cookie, principal, maxAgeMs: ttl };
}

function csrfTokenOf(state: AuthState, req: Request): string {
  const subject = csrfSubject(state, req);
  return subject === undefined
    ? ''
    : createHmac('sha256', state.key).update(subject).digest('base64url');
}

function csrfSubject(state: AuthState, req: Request): string | undefined {
  const proxy = fromProxy(state, req);
  if (proxy?.principal !== undefined) return `proxy:${proxy.identity}`;
  const found = sessionOf(state, req);
  return found === undefined ? undefined : `session:${found.id}`;
}

function addressOf(req: Request): string {
  const address = req.socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

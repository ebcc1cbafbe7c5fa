import { createHmac, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { secretsMatch, sha256Hex, tokenDigest } from '../../http/token-matcher';
import { principalOfIdentity, principalOfToken } from './console-access-files';
import type { ConsoleRolesFile, ConsoleTokensFile } from './console-access-files';
import type { Principal } from './principal';
import { createSessionStore } from './session-store';
import type { SessionStore } from './session-store';
import { trustedAddresses } from './trusted-addresses';
import type { TrustedAddresses } from './trusted-addresses';

export const SESSION_COOKIE = 'console_session';
/** The header the single sign-on proxy puts CONSOLE_PROXY_SECRET in (deploy/proxy/nginx.conf). */
const PROXY_SECRET_HEADER = 'X-Console-Proxy-Secret';

export interface ConsoleAuthOptions {
  readonly tokens: ConsoleTokensFile;
  /** CONSOLE_ROLES_FILE: identities the trusted proxy may send; undefined: no proxy sign-in. */
  readonly roles?: ConsoleRolesFile | undefined;
  /**
   * CONSOLE_TRUSTED_PROXY: only a request from one of these addresses or ranges may carry an
   * identity (not CONSOLE_TRUSTED_PROXIES: whose X-Forwarded-For is believed is another matter).
   */
  readonly identityProxies: readonly string[];
  /**
   * CONSOLE_PROXY_SECRET: and only with this secret in PROXY_SECRET_HEADER; undefined: no identity
   * is believed (an address alone is no proof: any process on that host has it).
   */
  readonly proxySecret?: string | undefined;
  /** CONSOLE_IDENTITY_HEADER, e.g. X-Forwarded-User (oauth2-proxy) or X-Remote-User. */
  readonly identityHeader: string;
  readonly sessionTtlMs: number;
  /** CONSOLE_MAX_SESSIONS: live sessions at most (session-store.ts: which one ends beyond it). */
  readonly maxSessions: number;
  /** CONSOLE_MAX_SESSIONS_PER_PRINCIPAL: live sessions of one principal at most; 10 unless told. */
  readonly maxSessionsPerPrincipal?: number;
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
  readonly identityProxies: TrustedAddresses;
  /** The SHA-256 of CONSOLE_PROXY_SECRET (compared as digests: one length, constant time). */
  readonly proxySecretDigest: Buffer | undefined;
}

/** What a sign-in came to: a session, a wrong token, or no session a viewer may end (session-store.ts). */
export type SignInResult =
  | { readonly outcome: 'signed-in'; cookie: string; principal: Principal; maxAgeMs: number }
  | { readonly outcome: 'wrong-token' }
  | { readonly outcome: 'sessions-full' };

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
      maxPerPrincipal: options.maxSessionsPerPrincipal ?? 10,
      sweepEveryMs: options.sweepEveryMs ?? 60_000,
      now,
    }),
    key: randomBytes(32),
    header: options.identityHeader.toLowerCase(),
    identityProxies: trustedAddresses(options.identityProxies),
    proxySecretDigest:
      options.proxySecret === undefined ? undefined : tokenDigest(options.proxySecret),
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
    /** The principal of a token of CONSOLE_TOKENS_FILE (the guess limits' check). */
    principalOfToken: (token: string): Principal | undefined =>
      principalOfToken(options.tokens, token),
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

/**
 * The identity the single sign-on proxy sent: believed only from a CONSOLE_TRUSTED_PROXY address
 * that also sends CONSOLE_PROXY_SECRET, so neither a client's own header passed on by a proxy nor
 * a local process speaking to the loopback becomes anyone.
 */
function fromProxy(
  state: AuthState,
  req: Request,
): { principal: Principal | undefined; identity: string } | undefined {
  const identity = req.headers[state.header];
  const roles = state.options.roles;
  if (typeof identity !== 'string' || identity === '' || roles === undefined) return undefined;
  if (!state.identityProxies.has(req.socket.remoteAddress ?? '')) return undefined;
  if (!proxySecretHolds(state, req)) return undefined;
  return { principal: principalOfIdentity(roles, identity), identity };
}

function proxySecretHolds({ proxySecretDigest }: AuthState, req: Request): boolean {
  const sent = req.get(PROXY_SECRET_HEADER);
  if (proxySecretDigest === undefined || sent === undefined) return false;
  return secretsMatch(tokenDigest(sent), proxySecretDigest);
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

function signIn(state: AuthState, token: string): SignInResult {
  const found = principalOfToken(state.options.tokens, token);
  if (found === undefined) return { outcome: 'wrong-token' };
  const principal: Principal = { ...found, via: 'session' };
  const cookie = randomBytes(32).toString('base64url');
  const ttl = state.options.sessionTtlMs;
  const kept = state.sessions.add(sha256Hex(cookie), { principal, expiresAt: state.now() + ttl });
  if (!kept) return { outcome: 'sessions-full' };
  return { outcome: 'signed-in', cookie, principal, maxAgeMs: ttl };
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

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

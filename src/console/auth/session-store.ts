import type { Principal } from './principal';

export interface Session {
  readonly principal: Principal;
  readonly expiresAt: number;
}

export interface SessionStoreOptions {
  /** CONSOLE_MAX_SESSIONS: live sessions at most; a sign-in beyond it ends one (see below). */
  readonly maxSessions: number;
  /** CONSOLE_MAX_SESSIONS_PER_PRINCIPAL: live sessions of one principal; beyond it its oldest ends. */
  readonly maxPerPrincipal: number;
  /** How often expired sessions are dropped (they are refused at once whatever this is). */
  readonly sweepEveryMs: number;
  readonly now: () => number;
}

/** The sessions of one principal, oldest first (a session is never renewed). */
interface Holder {
  readonly role: Principal['role'];
  readonly ids: string[];
}

/** One principal however it signed in: a token's name with its role and institution. */
function holderKey(principal: Principal): string {
  return JSON.stringify([principal.name, principal.role, principal.institution ?? null]);
}

/**
 * The console's sessions, in this process's memory, keyed by the SHA-256 of their cookie. A timer
 * drops the expired ones, so sign-ins that are never signed out do not pile up. A sign-in ends
 * the oldest session of its own principal past CONSOLE_MAX_SESSIONS_PER_PRINCIPAL, so one token
 * signing in again and again only ever ends its own sessions. Past CONSOLE_MAX_SESSIONS (with the
 * expired ones gone) it ends the oldest session of the viewer with the most; an operator's
 * sign-in ends an operator's (the one with the most) only when no viewer holds any, and a viewer's
 * sign-in is refused then: viewers' sign-ins never end an operator's session. Ending one rather
 * than refusing the sign-in keeps a holder of one token from keeping everyone else out.
 */
export function createSessionStore(options: SessionStoreOptions) {
  const sessions = new Map<string, Session>();
  const holders = new Map<string, Holder>();
  const drop = (id: string): void => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    const key = holderKey(session.principal);
    const holder = holders.get(key);
    if (holder === undefined) return;
    holder.ids.splice(holder.ids.indexOf(id), 1);
    if (holder.ids.length === 0) holders.delete(key);
  };
  const sweep = (): number => {
    const now = options.now();
    const expired = [...sessions].filter(([, session]) => session.expiresAt <= now);
    for (const [id] of expired) drop(id);
    return expired.length;
  };
  const timer = setInterval(sweep, options.sweepEveryMs);
  // The sweep never keeps a process alive that would otherwise end.
  timer.unref();
  return {
    /** The live session of this id; an expired one is dropped and undefined. */
    get(id: string): Session | undefined {
      const session = sessions.get(id);
      if (session === undefined || session.expiresAt > options.now()) return session;
      drop(id);
      return undefined;
    },
    /** Keeps a new session, ending one as above; false: refused (a viewer's, nothing to end). */
    add(id: string, session: Session): boolean {
      const key = holderKey(session.principal);
      const own = holders.get(key)?.ids ?? [];
      while (own.length >= options.maxPerPrincipal && own[0] !== undefined) drop(own[0]);
      if (sessions.size >= options.maxSessions) sweep();
      while (sessions.size >= options.maxSessions) {
        const victim = oldestOfBusiest(holders, session.principal.role);
        if (victim === undefined) return false;
        drop(victim);
      }
      sessions.set(id, session);
      const holder = holders.get(key) ?? { role: session.principal.role, ids: [] };
      holder.ids.push(id);
      holders.set(key, holder);
      return true;
    },
    delete: drop,
    /** Live and not yet swept. */
    size: (): number => sessions.size,
    sweep,
    close: (): void => {
      clearInterval(timer);
    },
  };
}
export type SessionStore = ReturnType<typeof createSessionStore>;

/** The oldest session of the viewer with the most; for an operator's sign-in, else an operator's. */
function oldestOfBusiest(
  holders: ReadonlyMap<string, Holder>,
  signingIn: Principal['role'],
): string | undefined {
  const roles: readonly Principal['role'][] =
    signingIn === 'operator' ? ['viewer', 'operator'] : ['viewer'];
  for (const role of roles) {
    let busiest: Holder | undefined;
    for (const holder of holders.values()) {
      if (holder.role === role && holder.ids.length > (busiest?.ids.length ?? 0)) busiest = holder;
    }
    if (busiest !== undefined) return busiest.ids[0];
  }
  return undefined;
}

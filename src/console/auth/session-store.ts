import type { Principal } from './principal';

export interface Session {
  readonly principal: Principal;
  readonly expiresAt: number;
}

export interface SessionStoreOptions {
  /** CONSOLE_MAX_SESSIONS: live sessions at most; a sign-in beyond it ends the oldest. */
  readonly maxSessions: number;
  /** How often expired sessions are dropped (they are refused at once whatever this is). */
  readonly sweepEveryMs: number;
  readonly now: () => number;
}

/**
 * The console's sessions, in this process's memory, keyed by the SHA-256 of their cookie. A timer
 * drops the expired ones, so sign-ins that are never signed out do not pile up; and the count of
 * live sessions is capped. At the cap the oldest session ends rather than the sign-in being
 * refused: a holder of one valid token could otherwise keep everyone else out, while ending the
 * oldest costs its owner one more sign-in. The map keeps insertion order, and a session is never
 * renewed, so its first entry is the oldest.
 */
export function createSessionStore(options: SessionStoreOptions) {
  const sessions = new Map<string, Session>();
  const sweep = (): number => {
    const now = options.now();
    let dropped = 0;
    for (const [id, session] of sessions) {
      if (session.expiresAt <= now) {
        sessions.delete(id);
        dropped += 1;
      }
    }
    return dropped;
  };
  const timer = setInterval(sweep, options.sweepEveryMs);
  // The sweep never keeps a process alive that would otherwise end.
  timer.unref();
  return {
    /** The live session of this id; an expired one is dropped and undefined. */
    get(id: string): Session | undefined {
      const session = sessions.get(id);
      if (session === undefined || session.expiresAt > options.now()) return session;
      sessions.delete(id);
      return undefined;
    },
    /** Keeps a new session; at the cap, the expired ones go first, then the oldest. */
    add(id: string, session: Session): void {
      if (sessions.size >= options.maxSessions) sweep();
      for (const oldest of sessions.keys()) {
        if (sessions.size < options.maxSessions) break;
        sessions.delete(oldest);
      }
      sessions.set(id, session);
    },
    delete: (id: string): void => {
      sessions.delete(id);
    },
    /** Live and not yet swept. */
    size: (): number => sessions.size,
    sweep,
    close: (): void => {
      clearInterval(timer);
    },
  };
}
export type SessionStore = ReturnType<typeof createSessionStore>;

import type { Request, RequestHandler, Response } from 'express';

export interface WrongTokenLimitOptions {
  /**
   * Wrong tokens one client may send per window. At it, that client's requests with a token are
   * refused (429) before the token is checked, so a guess made then cannot tell right from wrong.
   */
  readonly perClient: number;
  /**
   * Wrong tokens all clients together may send per window. Past it a wrong token's answer waits
   * for the window's end (a right token is answered at once): many addresses guess no faster than
   * that, and nobody holding a right token is refused for what others sent.
   */
  readonly overall: number;
  /** The window both counts are kept for: a minute unless told. */
  readonly windowMs?: number;
  /** Wrong answers held at once past the overall budget; beyond it they are refused (429) at once. */
  readonly maxHeld?: number;
  readonly now?: () => number;
}

/** Why a request was refused: its client's limit, or the overall one with nothing left to hold. */
export type WrongTokenRefusal = 'client' | 'overall';

/** How one route finds, checks and refuses a token; the limit keeps the counts. */
export interface TokenCheck {
  /** The token sent; undefined: none, so not a guess (nothing counted). */
  tokenOf(req: Request): string | undefined;
  isRight(token: string): boolean;
  /** The client a count is kept for (the address as the trusted proxies show it). */
  clientOf(req: Request): string;
  /** Answers the refusal (Retry-After is already set). */
  refuse(res: Response, why: WrongTokenRefusal): void;
}

interface LimitState {
  windowEnds: number;
  overall: number;
  held: number;
  readonly perClient: Map<string, number>;
}

/**
 * Counts wrong tokens per client and overall in fixed windows. A right token never counts; a
 * client at its limit is refused before its token is checked; past the overall budget, wrong
 * answers are held to the window's end instead of refusing anyone. One limit can guard several
 * routes (the console's sign-in form and its Bearer tokens share theirs).
 */
export function createWrongTokenLimit(options: WrongTokenLimitOptions) {
  const windowMs = options.windowMs ?? 60_000;
  const maxHeld = options.maxHeld ?? 1_000;
  const now = options.now ?? Date.now;
  const state: LimitState = { windowEnds: 0, overall: 0, held: 0, perClient: new Map() };
  const roll = (): void => {
    if (now() < state.windowEnds) return;
    state.windowEnds = now() + windowMs;
    state.overall = 0;
    state.perClient.clear();
  };
  const refuse = (check: TokenCheck, res: Response, why: WrongTokenRefusal): void => {
    res.setHeader('Retry-After', String(Math.max(1, Math.ceil((state.windowEnds - now()) / 1000))));
    check.refuse(res, why);
  };
  const guard =
    (check: TokenCheck): RequestHandler =>
    (req, res, next) => {
      const token = check.tokenOf(req);
      if (token === undefined) return next();
      roll();
      const client = check.clientOf(req);
      const wrongs = state.perClient.get(client) ?? 0;
      if (wrongs >= options.perClient) return refuse(check, res, 'client');
      if (check.isRight(token)) return next();
      state.perClient.set(client, wrongs + 1);
      state.overall += 1;
      if (state.overall <= options.overall) return next();
      if (state.held >= maxHeld) return refuse(check, res, 'overall');
      state.held += 1;
      // The answer (the route's own 401) is only sent once the window is over.
      setTimeout(() => {
        state.held -= 1;
        next();
      }, state.windowEnds - now()).unref();
    };
  return { guard };
}
export type WrongTokenLimit = ReturnType<typeof createWrongTokenLimit>;

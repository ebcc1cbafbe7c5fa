import type {
  AuditPage,
  ForgetReport,
  HistoryEventSummary,
  HistoryPage,
  JourneyStep,
  ReplayDryRun,
  SetAsideEntry,
} from '../../history';
import type { ReplayRun } from '../../operations/background-replays';
import type { RecoveryDryRun } from '../../operations/recovery-dry-run';
import type { replayDryRunText } from '../../operations/replay-dry-run-text';
import type { Principal } from '../auth/principal';

/** One operator action, as the audit trail keeps it. */
export interface AuditRecord {
  readonly at: Date;
  /** The principal's name (a token's `name`, or the proxy's identity). */
  readonly actor: string;
  readonly role: Principal['role'];
  readonly institution?: string | undefined;
  /** `route.pause`, `route.resume`, `route.replay`, `rejected.replay`, `rejected.remove`, `failed.replay`, … */
  readonly action: string;
  /** What it was done to: a route name, a rejected ref, a job id. */
  readonly target: string;
  readonly outcome: 'done' | 'refused' | 'failed';
  readonly detail?: string | undefined;
  /** A refusal's machine code (`forbidden_role`, `invalid_request`, `too_many_runs`, …). */
  readonly reason?: string | undefined;
  /** A person the action names (a forget's): the row's target is its keyed hash instead. */
  readonly person?: string | undefined;
}

/**
 * An event and its journey, as the console shows it: the history's own summary and steps, the body
 * as the principal may see it, and (operators) the routes that take it. The API's schema
 * (api/api-schemas.ts, `EventDetail`) is held to this type with `satisfies`.
 */
export interface EventJourney {
  readonly event: HistoryEventSummary;
  /** The event as received, patron fields masked for viewers; null: not kept. */
  readonly body: unknown;
  readonly steps: readonly JourneyStep[];
  /** Operators: the routes that take the event (where it may be delivered again). */
  readonly routes?: readonly string[] | undefined;
}

/** A replay started in the background, or a recovery: its first progress. */
export type StartedRun = ReplayRun & { readonly dryRun: false };

/** A replay by query: its dry run (count, sample and the same in words), or the run it started. */
export type ReplayAnswer =
  | (ReplayDryRun &
      ReturnType<typeof replayDryRunText> & {
        readonly dryRun: true;
        readonly route: string;
        readonly ignoreRouteMatch: boolean;
      })
  | StartedRun;

/** A recovery ("recover since"): its dry run, or the run it started. */
export type RecoveryAnswer =
  (RecoveryDryRun & { readonly dryRun: true; readonly route: string }) | StartedRun;

/** The records set aside, never the record itself: operators get the rows, viewers the count. */
export interface SetAsidePage {
  readonly count: number;
  readonly items: readonly Omit<SetAsideEntry, 'record'>[];
  readonly next?: string;
}

/**
 * What the console asks of the event history (src/history/, PostgreSQL). The console runs without
 * it — live state from Redis only — and then says so on every page and answers the history calls
 * with 503 `history_off`. The wiring gives the history's own functions here; the queries are
 * checked there, and the results are the history's own types.
 */
export interface ConsoleHistory {
  /** `GET /api/v1/events`: the history search, filters as the CLI names them. */
  search(filters: Readonly<Record<string, string>>, scope: HistoryScope): Promise<HistoryPage>;
  /** `GET /api/v1/events/{institution}/{id}`: the event and its journey; undefined: not found. */
  journey(institution: string, id: string, scope: HistoryScope): Promise<EventJourney | undefined>;
  /**
   * `POST /api/v1/replays`: `{ route, filters, dryRun }`. A dry run answers its count and sample;
   * a replay starts in the background and answers its first progress (`replayId`).
   */
  replayByQuery(request: unknown, scope: HistoryScope): Promise<ReplayAnswer>;
  /** `GET /api/v1/replays/{id}`: a replay's progress; undefined: no such replay (or forgotten). */
  replayProgress(replayId: string, scope: HistoryScope): Promise<ReplayRun | undefined>;
  /**
   * `POST /api/v1/recoveries`: `{ route, since, until?, institution?, dryRun }` ("recover since").
   * A dry run answers its count and sample; a recovery starts in the background (`replayId`).
   */
  recover(request: unknown, scope: HistoryScope): Promise<RecoveryAnswer>;
  /** `GET /api/v1/recoveries/{id}`: a recovery's progress; undefined: no such recovery. */
  recoveryProgress(recoveryId: string, scope: HistoryScope): Promise<ReplayRun | undefined>;
  /** `GET /api/v1/set-aside`: records the history set aside (operators), their count (viewers). */
  listSetAside(query: Readonly<Record<string, string>>, scope: HistoryScope): Promise<SetAsidePage>;
  /** `POST /api/v1/forget`: `{ user }`. */
  forget(request: unknown, scope: HistoryScope): Promise<ForgetReport>;
  /** `GET /api/v1/audit`. */
  listAudit(query: Readonly<Record<string, string>>, scope: HistoryScope): Promise<AuditPage>;
  /** Keeps one operator action; without history they go to the log only. */
  audit(record: AuditRecord): Promise<void>;
  /** PostgreSQL answers (the overview's health line). */
  ping(): Promise<boolean>;
  /** Stops the replays running in the background (the console's shutdown). */
  close(): Promise<void>;
}

/** Who asks, as the history needs it: masked fields for viewers, one institution or all. */
export interface HistoryScope {
  readonly role: Principal['role'];
  readonly institution?: string | undefined;
  /** Who acts (kept in the audit of a replay or a forget). */
  readonly actor?: string | undefined;
}

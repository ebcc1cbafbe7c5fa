import { bodyCapOf, DEFAULT_BODY_CAPS } from './body-caps';
import type { BodyCaps } from './body-caps';
import type { ClientLogger } from './client-logger';
import { createDownloads } from './client-download';
import { createPaginate } from './client-paginate';
import type {
  CallOptions,
  DownloadParams,
  DownloadStream,
  DownloadResult,
  DownloadTarget,
  EndpointTable,
  LooseParams,
  SvcPaginate,
  SvcRequest,
} from './client-types';
import type { Endpoint } from './endpoint';
import { endpoints as defaultEndpoints } from './endpoints';
import { createGovernance } from './governance';
import { nodeHttpTransport } from './http-transport';
import type { HttpTransport } from './http-transport';
import { prepareCall } from './prepare-call';
import type { PreparedCall } from './prepare-call';
import { createRateLimiter, realSleep } from './rate-limiter';
import type { RateLimiter, Sleep } from './rate-limiter';
import { answerReader } from './read-answer';
import { createRetryPolicy } from './retry-policy';
import { createRowLookup } from './row-lookup';
import { sendRequest } from './send-request';
import type { Consume, Transport } from './send-request';

export type { LooseParams } from './client-types';

export interface SvcClientOptions<T extends EndpointTable = typeof defaultEndpoints> {
  /** The regional deployment's address (SVC_BASE_URL); the client adds `/svcws/v1`. */
  baseUrl: string;
  /** SVC_API_KEY: sent as the `apikey` query parameter (spec §5), never logged. */
  apiKey: string;
  /** Receives one debug line per call and the governance warning. */
  logger?: ClientLogger | undefined;
  /**
   * SVC_RATE_PER_SECOND: at most this many calls arrive at the service in any second. A call holds
   * one of this many slots from its start until a second after its answer (rate-limiter.ts).
   */
  ratePerSecond?: number | undefined;
  /** SVC_TIMEOUT_MS: per attempt, up to the complete answer (a download: up to its headers). */
  timeoutMs?: number | undefined;
  /** SVC_MAX_RETRIES: retries after the first attempt, for what the retry rules allow. */
  maxRetries?: number | undefined;
  /** SVC_REMAINING_FLOOR: warn once when `X-Svc-Api-Remaining` falls under it. */
  remainingFloor?: number | undefined;
  /** Called with every `X-Svc-Api-Remaining` value seen. */
  onRemaining?: ((remaining: number) => void) | undefined;
  /** Sends one HTTP request; `node:http`/`node:https` unless given (see http-transport.ts). */
  transport?: HttpTransport | undefined;
  /** The operation table; the service's 94 rows unless given. */
  endpoints?: T | undefined;
  /**
   * The most bytes a 2xx answer may have, per family (`list` pages, other `document` answers);
   * past it the call fails with `BODY_TOO_LARGE`. Downloads stream to their target, uncapped.
   */
  maxBodyBytes?: Partial<BodyCaps> | undefined;
  /** Retry backoff: first ceiling and cap (full jitter draws below them). */
  retryBaseDelayMs?: number | undefined;
  retryMaxDelayMs?: number | undefined;
  /** The wait between retries and the jitter's source; injectable so tests count, not wait. */
  sleep?: Sleep | undefined;
  random?: (() => number) | undefined;
  /**
   * A limiter to use instead of one of `ratePerSecond`: clients in one process that share it
   * share the budget of calls per second.
   */
  rateLimiter?: RateLimiter | undefined;
}

export interface SvcClient<T extends EndpointTable = typeof defaultEndpoints> {
  /** One call, by route: `request('GET /conf/jobs/{job_id}', { path: { job_id } })`. */
  request: SvcRequest<T>;
  /** One call, by the row's operation name (`getJob`); parameters checked at run time only. */
  call(operation: string, params?: LooseParams): Promise<unknown>;
  /** Every item of a list operation, 100 a page; `.pages()` for the pages. */
  paginate: SvcPaginate<T>;
  /** Streams a job instance's records (spec §4.3) to a stream or a file. */
  download(params: DownloadParams, target: DownloadTarget): Promise<DownloadResult>;
  /** The same records as a stream the caller consumes. */
  downloadStream(params: DownloadParams, options?: CallOptions): Promise<DownloadStream>;
  /** The latest `X-Svc-Api-Remaining` (spec §1.3), undefined before the first answer. */
  remaining(): number | undefined;
}

/**
 * The API client: a `createX(options)` factory, its dependencies passed in. One generic call path
 * serves all rows of the table: check the row's rules, wait for the limiter, send, read the
 * governance header, classify, retry what may be retried.
 */
export function createSvcClient(options: SvcClientOptions): SvcClient;
export function createSvcClient<T extends EndpointTable>(
  options: SvcClientOptions<T> & { endpoints: T },
): SvcClient<T>;
export function createSvcClient(
  options: SvcClientOptions<EndpointTable>,
): SvcClient<EndpointTable> {
  const rows = createRowLookup(options.endpoints ?? defaultEndpoints);
  const transport = transportOf(options);
  const caps: BodyCaps = { ...DEFAULT_BODY_CAPS, ...options.maxBodyBytes };
  const prepareDownload = (endpoint: Endpoint, params: LooseParams): PreparedCall =>
    prepareCall(endpoint, params, options.baseUrl, options.apiKey);
  const prepare = (endpoint: Endpoint, params: LooseParams): PreparedCall => ({
    ...prepareDownload(endpoint, params),
    bodyCap: bodyCapOf(caps, endpoint),
  });
  const send = async (
    endpoint: Endpoint,
    params: LooseParams = {},
    read: (call: PreparedCall) => Consume<unknown> = answerReader,
  ): Promise<unknown> => {
    const call = prepare(endpoint, params);
    const callOptions = { signal: params.signal, timeoutMs: params.timeoutMs };
    return sendRequest(transport, call, read(call), callOptions);
  };
  // async: every refusal, even of an unknown route, arrives as a rejection.
  const request = (async (route: string, params?: LooseParams) =>
    send(rows.document(rows.byRoute(route)), params)) as SvcRequest<EndpointTable>;
  return {
    request,
    call: async (operation, params) => send(rows.document(rows.byOperation(operation)), params),
    paginate: createPaginate({ listRow: rows.list, send }),
    ...createDownloads({ transport, row: rows.download, prepare: prepareDownload }),
    remaining: transport.governance.remaining,
  };
}

/** What every call shares: the HTTP transport, the limiter, the retry policy, the governance watch. */
function transportOf(options: SvcClientOptions<EndpointTable>): Transport {
  return {
    http: options.transport ?? nodeHttpTransport,
    limiter: options.rateLimiter ?? createRateLimiter({ limit: options.ratePerSecond ?? 25 }),
    retryPolicy: createRetryPolicy({
      maxRetries: options.maxRetries ?? 3,
      ...(options.retryBaseDelayMs !== undefined ? { baseDelayMs: options.retryBaseDelayMs } : {}),
      ...(options.retryMaxDelayMs !== undefined ? { maxDelayMs: options.retryMaxDelayMs } : {}),
      ...(options.random ? { random: options.random } : {}),
    }),
    governance: createGovernance({
      logger: options.logger,
      floor: options.remainingFloor,
      onRemaining: options.onRemaining,
    }),
    sleep: options.sleep ?? realSleep,
    logger: options.logger,
    timeoutMs: options.timeoutMs ?? 30_000,
    secrets: [options.apiKey],
  };
}

import type { Logger } from 'pino';
import type {
  CallOptions,
  DownloadParams,
  DownloadStream,
  DownloadResult,
  DownloadTarget,
  EndpointTable,
  Page,
  SvcPaginate,
  SvcRequest,
} from './client-types';
import type { BodyFormat, Endpoint } from './endpoint';
import { endpoints as defaultEndpoints } from './endpoints';
import { DOWNLOAD_ROUTE, streamTo } from './download';
import { createGovernance } from './governance';
import { paginateItems, paginatePages } from './paginate';
import { prepareCall } from './prepare-call';
import type { CallInput, PreparedCall } from './prepare-call';
import { createRateLimiter, realSleep } from './rate-limiter';
import type { RateLimiter, Sleep } from './rate-limiter';
import { responseSchemaOf } from './response-schemas';
import { createRetryPolicy } from './retry-policy';
import { sanitizedCause, sendRequest } from './send-request';
import type { Transport } from './send-request';
import { nodeHttpTransport } from './http-transport';
import type { HttpTransport } from './http-transport';
import { readText } from './read-body';
import { SvcApiError } from './svc-api-error';
import { SvcParamError } from './svc-param-error';
import { isRecord } from './is-record';

export interface SvcClientOptions<T extends EndpointTable = typeof defaultEndpoints> {
  /** The regional deployment's address (SVC_BASE_URL); the client adds `/svcws/v1`. */
  baseUrl: string;
  /** SVC_API_KEY: sent as the `apikey` query parameter (spec §5), never logged. */
  apiKey: string;
  /** Receives one debug line per call and the governance warning. */
  logger?: Logger | undefined;
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

/** Run-time shape of a call's parameters, whatever the route. */
export interface LooseParams {
  path?: Readonly<Record<string, string>> | undefined;
  query?: unknown;
  body?: unknown;
  format?: BodyFormat | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

/**
 * The API client (CONVENTIONS: `createX(options)`, dependencies passed in). One generic call path
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
  const table: EndpointTable = options.endpoints ?? defaultEndpoints;
  const byOperation = new Map<string, Endpoint>(
    Object.values(table).map((endpoint) => [endpoint.operation, endpoint]),
  );
  const sleep = options.sleep ?? realSleep;
  const governance = createGovernance({
    logger: options.logger,
    floor: options.remainingFloor,
    onRemaining: options.onRemaining,
  });
  const transport: Transport = {
    http: options.transport ?? nodeHttpTransport,
    limiter: options.rateLimiter ?? createRateLimiter({ limit: options.ratePerSecond ?? 25 }),
    retryPolicy: createRetryPolicy({
      maxRetries: options.maxRetries ?? 3,
      ...(options.retryBaseDelayMs !== undefined ? { baseDelayMs: options.retryBaseDelayMs } : {}),
      ...(options.retryMaxDelayMs !== undefined ? { maxDelayMs: options.retryMaxDelayMs } : {}),
      ...(options.random ? { random: options.random } : {}),
    }),
    governance,
    sleep,
    logger: options.logger,
    timeoutMs: options.timeoutMs ?? 30_000,
    secrets: [options.apiKey],
  };

  function rowOf(route: string): Endpoint {
    const endpoint = Object.hasOwn(table, route) ? table[route] : undefined;
    if (!endpoint) throw new RangeError(`unknown route: ${route}`);
    return endpoint;
  }

  function prepare(endpoint: Endpoint, params: LooseParams) {
    const input: CallInput = {
      path: params.path,
      query: params.query,
      body: params.body,
      format: params.format,
    };
    return prepareCall(endpoint, input, options.baseUrl, options.apiKey);
  }

  async function send(endpoint: Endpoint, params: LooseParams = {}): Promise<unknown> {
    const call = prepare(endpoint, params);
    const schema = call.format === 'json' ? responseSchemaOf(endpoint.route) : undefined;
    return sendRequest(
      transport,
      call,
      async (response) => {
        if (response.status === 204) {
          response.body.resume();
          return undefined; // spec §1.4, §7 rule 4
        }
        const text = await readText(response.body);
        if (call.format === 'xml') return text;
        if (text.trim() === '') return undefined;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          throw invalidResponse(call.endpoint, call.redactedUrl, 'the answer is not valid JSON');
        }
        if (!schema) return value;
        const parsed = schema.safeParse(value);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const where = issue ? issue.path.join('.') || '(root)' : '(root)';
          throw invalidResponse(
            call.endpoint,
            call.redactedUrl,
            `the answer does not match the ${endpoint.operation} response shape at ${where}`,
          );
        }
        return parsed.data;
      },
      { signal: params.signal, timeoutMs: params.timeoutMs },
    );
  }

  /** A file answer read as text would sit whole in memory: those rows go through download(). */
  function documentRow(endpoint: Endpoint): Endpoint {
    if (endpoint.download) {
      throw new SvcParamError({
        operation: endpoint.operation,
        parameter: 'route',
        rule: 'answers with a file: use download() or downloadStream()',
      });
    }
    return endpoint;
  }

  // async: every refusal, even of an unknown route, arrives as a rejection.
  const request = (async (route: string, params?: LooseParams) =>
    send(documentRow(rowOf(route)), params)) as SvcRequest<EndpointTable>;

  function listRow(route: string): Endpoint {
    const endpoint = rowOf(route);
    if (!endpoint.list) {
      throw new SvcParamError({
        operation: endpoint.operation,
        parameter: 'route',
        rule: 'is not a list operation (no limit/offset)',
      });
    }
    return endpoint;
  }

  function pageFetcher(endpoint: Endpoint, params: LooseParams) {
    const query = isRecord(params.query) ? params.query : {};
    return {
      start: {
        offset: typeof query['offset'] === 'number' ? query['offset'] : undefined,
        limit: typeof query['limit'] === 'number' ? query['limit'] : undefined,
      },
      fetchPage: (offset: number, limit: number) =>
        send(endpoint, { ...params, format: 'json', query: { ...query, offset, limit } }),
    };
  }

  const paginate = Object.assign(
    (route: string, params: LooseParams = {}): AsyncIterableIterator<unknown> => {
      const { fetchPage, start } = pageFetcher(listRow(route), params);
      return paginateItems(fetchPage, start);
    },
    {
      pages: (route: string, params: LooseParams = {}): AsyncIterableIterator<Page> => {
        const { fetchPage, start } = pageFetcher(listRow(route), params);
        return paginatePages(fetchPage, start);
      },
    },
  ) as SvcPaginate<EndpointTable>;

  async function openDownload(params: DownloadParams, callOptions: CallOptions) {
    const { job_id, instance_id, ...query } = params;
    const call = prepare(rowOf(DOWNLOAD_ROUTE), { path: { job_id, instance_id }, query });
    const response = await sendRequest(transport, call, async (answer) => answer, callOptions);
    return {
      call,
      body: response.body,
      contentType: response.header('content-type'),
    };
  }

  async function download(params: DownloadParams, target: DownloadTarget): Promise<DownloadResult> {
    const { call, body, contentType } = await openDownload(params, target);
    try {
      const bytes = await streamTo(body, target.to, { signal: target.signal });
      return { bytes, contentType };
    } catch (error) {
      body.destroy();
      throw downloadFailed(call, error, target.signal, transport.secrets);
    }
  }

  async function downloadStream(params: DownloadParams, callOptions: CallOptions = {}) {
    const { body, contentType } = await openDownload(params, callOptions);
    return { body, contentType };
  }

  return {
    request,
    call: async (operation, params) => {
      const endpoint = byOperation.get(operation);
      if (!endpoint) throw new RangeError(`unknown operation: ${operation}`);
      return send(documentRow(endpoint), params);
    },
    paginate,
    download,
    downloadStream,
    remaining: governance.remaining,
  };
}

function invalidResponse(endpoint: Endpoint, url: string, message: string): SvcApiError {
  return new SvcApiError({
    message: `${endpoint.operation}: ${message}`,
    status: undefined,
    code: 'INVALID_RESPONSE',
    meaning: undefined,
    operation: endpoint.operation,
    method: endpoint.method,
    route: endpoint.route,
    url,
    retryable: false,
  });
}

/** A transfer that broke after the headers: not retried here (bytes may be written already). */
function downloadFailed(
  call: PreparedCall,
  error: unknown,
  signal: AbortSignal | undefined,
  secrets: readonly string[],
): SvcApiError {
  const { endpoint } = call;
  const cause = sanitizedCause(error, secrets);
  const abortedByCaller = signal?.aborted === true;
  // A local failure (disk full, no permission) carries the syscall; it will not heal by retrying.
  const local = typeof error === 'object' && error !== null && 'syscall' in error;
  return new SvcApiError({
    message: abortedByCaller
      ? `${endpoint.operation}: download aborted by the caller`
      : `${endpoint.operation}: download failed (${cause.message})`,
    status: undefined,
    code: abortedByCaller ? 'ABORTED' : 'DOWNLOAD_FAILED',
    meaning: undefined,
    operation: endpoint.operation,
    method: endpoint.method,
    route: endpoint.route,
    url: call.redactedUrl,
    retryable: !abortedByCaller && !local,
    cause,
  });
}

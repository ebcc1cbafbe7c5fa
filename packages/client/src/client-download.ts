import type {
  CallOptions,
  DownloadParams,
  DownloadResult,
  DownloadStream,
  DownloadTarget,
  LooseParams,
} from './client-types';
import { pipeCountingBytes } from './pipe-counting-bytes';
import type { Endpoint } from './endpoint';
import type { PreparedCall } from './prepare-call';
import { sanitizedCause } from './sanitized-cause';
import { sendRequest } from './send-request';
import type { Transport } from './send-request';
import { SvcApiError } from './svc-api-error';

export interface DownloadDeps {
  readonly transport: Transport;
  /** The table's file row (spec §4.3: a metadata import job's records, XML or binary MARC). */
  readonly row: () => Endpoint;
  readonly prepare: (endpoint: Endpoint, params: LooseParams) => PreparedCall;
}

/** `download()` into a stream or a file, and `downloadStream()` for the caller to consume. */
export function createDownloads({ transport, row, prepare }: DownloadDeps) {
  async function open(params: DownloadParams, options: CallOptions) {
    const { job_id, instance_id, ...query } = params;
    const call = prepare(row(), { path: { job_id, instance_id }, query });
    // The body outlives the attempt's timeout: the timeout covers the call up to the headers.
    const response = await sendRequest(transport, call, async (answer) => answer, options);
    return { call, body: response.body, contentType: response.header('content-type') };
  }

  async function download(params: DownloadParams, target: DownloadTarget): Promise<DownloadResult> {
    const { call, body, contentType } = await open(params, target);
    try {
      const bytes = await pipeCountingBytes(body, target.to, { signal: target.signal });
      return { bytes, contentType };
    } catch (error) {
      body.destroy();
      throw downloadFailed(call, error, target.signal, transport.secrets);
    }
  }

  async function downloadStream(
    params: DownloadParams,
    options: CallOptions = {},
  ): Promise<DownloadStream> {
    const { body, contentType } = await open(params, options);
    return { body, contentType };
  }

  return { download, downloadStream };
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

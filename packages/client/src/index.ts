/** The API client's public pieces (spec §4 operations over §5 auth, §7 errors, §8 limits). */
export { createSvcClient } from './create-svc-client';
export type { LooseParams, SvcClient, SvcClientOptions } from './create-svc-client';
export { DEFAULT_BODY_CAPS } from './body-caps';
export type { BodyCaps } from './body-caps';
export type {
  CallOptions,
  DownloadParams,
  DownloadResult,
  DownloadStream,
  DownloadTarget,
  EndpointTable,
  Page,
  RequestParams,
  RouteOf,
} from './client-types';
export { SvcApiError } from './svc-api-error';
export type { ClientErrorCode, SvcApiErrorFields } from './svc-api-error';
export { SvcParamError } from './svc-param-error';
export { endpoints, endpointByOperation } from './endpoints';
export type { EndpointRoute, ResponseOf } from './endpoints';
export { defineArea } from './endpoint';
export type {
  Area,
  AreaTable,
  BodyFormat,
  Endpoint,
  EndpointRow,
  HttpMethod,
  PathParams,
  Refusal,
  ResponseOfEndpoint,
  Route,
} from './endpoint';
export { redactUrl } from './redact-url';
export { CodeField, JobInfo, JobInstance, JobInstanceCounter } from './job-instance';
export { createRateLimiter } from './rate-limiter';
export type { RateLimiter, Release, Sleep } from './rate-limiter';
export { nodeHttpTransport } from './http-transport';
export type { HttpTransport, TransportRequest, TransportResponse } from './http-transport';
export type { ClientLogger } from './client-logger';
export { pipeCountingBytes } from './pipe-counting-bytes';
export type { PipeCountingBytesOptions } from './pipe-counting-bytes';
export { TEMPORARY_FILE_PATTERN } from './temporary-file-name';
export { isRecord } from './is-record';

import { createLogger } from 'svcws-listener';
import { createSandbox } from '../create-sandbox';
import type { CreateSandboxOptions, Sandbox } from '../create-sandbox';
import type { SandboxConfig } from '../sandbox-config';

/** The one API key a sandbox started by `startSandbox` accepts. */
export const TEST_API_KEY = 'test-key';

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed JSON body, `{}` when the body is not JSON. */
  readonly json: Record<string, unknown>;
  /** errorCode of the first error in a JSON error body. */
  readonly errorCode: string | undefined;
}

export interface SandboxUnderTest {
  readonly sandbox: Sandbox;
  readonly url: string;
  /** A call to `/svcws/v1<path>` with the test key appended (unless `apikey` is in the path). */
  api(
    method: string,
    path: string,
    init?: { body?: string; headers?: Record<string, string> },
  ): Promise<Reply>;
  /** A call to `/sandbox<path>` with a JSON body. */
  admin(method: string, path: string, body?: unknown): Promise<Reply>;
  close(): Promise<void>;
}

/**
 * A sandbox in this process on a free port, for tests: silent, accepting TEST_API_KEY, with a rate
 * limit no test reaches and only the jobs area unless `options.areas` names more.
 */
export async function startSandbox(
  config: Partial<SandboxConfig> = {},
  options: Omit<CreateSandboxOptions, 'logger' | 'config'> = {},
): Promise<SandboxUnderTest> {
  const sandbox = createSandbox({
    config: { SANDBOX_API_KEYS: [TEST_API_KEY], SANDBOX_RATE_PER_SECOND: 10_000, ...config },
    logger: createLogger({ level: 'silent', name: 'sandbox-test' }),
    areas: [],
    ...options,
  });
  const running = await sandbox.start(0);
  const call = async (
    url: string,
    method: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: XML, or no body
    }
    const errors = (json.errorList as { error?: { errorCode?: string }[] } | undefined)?.error;
    return {
      status: response.status,
      headers: response.headers,
      text,
      json,
      errorCode: errors?.[0]?.errorCode,
    };
  };
  return {
    sandbox,
    url: running.url,
    api: (method, path, init = {}) => {
      const withKey = path.includes('apikey=')
        ? path
        : `${path}${path.includes('?') ? '&' : '?'}apikey=${TEST_API_KEY}`;
      return call(`${running.url}/svcws/v1${withKey}`, method, init.body, init.headers);
    },
    admin: (method, path, body) =>
      call(
        `${running.url}/sandbox${path}`,
        method,
        body === undefined ? undefined : JSON.stringify(body),
      ),
    close: () => running.close(),
  };
}

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');

/**
 * Starts tracing with the given environment in a fresh Node process (jest's module registry would
 * hide what Node itself loaded) and reports what it returned and which OpenTelemetry packages
 * were loaded.
 */
function startIn(env: Record<string, string>): { enabled: boolean; loaded: string[] } {
  const script = `
    const { startTracing } = require('./src/tracing/start-tracing');
    const tracing = startTracing({ env: ${JSON.stringify(env)}, serviceName: 'svcws-test' });
    const loaded = new Set(Object.keys(require.cache)
      .map((file) => /node_modules\\/(@opentelemetry\\/[^/]+|bullmq-otel)\\//.exec(file)?.[1])
      .filter(Boolean));
    process.stdout.write(JSON.stringify({ enabled: tracing.enabled, loaded: [...loaded].sort() }));
    void tracing.shutdown();
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out.toString('utf8')) as { enabled: boolean; loaded: string[] };
}

describe('startTracing', () => {
  it('loads no SDK and no instrumentation without an OTLP endpoint', () => {
    expect(startIn({})).toEqual({ enabled: false, loaded: [] });
  });

  it('loads the SDK and the instrumentations when OTEL_EXPORTER_OTLP_ENDPOINT is set', () => {
    const { enabled, loaded } = startIn({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(enabled).toBe(true);
    expect(loaded).toEqual(
      expect.arrayContaining([
        '@opentelemetry/sdk-trace-node',
        '@opentelemetry/instrumentation-http',
        '@opentelemetry/exporter-trace-otlp-proto',
      ]),
    );
  });

  it('refuses a protocol it cannot export with, naming the variable', () => {
    expect(() =>
      startIn({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported/);
  });
});

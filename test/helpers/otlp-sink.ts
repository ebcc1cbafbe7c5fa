import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/JSON carries it, with its service's name. */
export interface SunkSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** Attribute values as text, by key. */
  readonly attributes: Readonly<Record<string, string>>;
  /** The span's events (an exception, BullMQ's `job completed`…), their attributes as text. */
  readonly events: readonly { name: string; attributes: Readonly<Record<string, string>> }[];
  /** The status message ('' when none). */
  readonly statusMessage: string;
}

export interface OtlpSink {
  /** The base address: OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  spans(): SunkSpan[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: OtlpAttribute[];
        events?: { name: string; attributes?: OtlpAttribute[] }[];
        status?: { message?: string };
      }[];
    }[];
  }[];
}

/**
 * A real OTLP/HTTP receiver on port 0 (http/json only): it answers 200 to POST /v1/traces and keeps
 * the spans. With `keep: false` it discards them unread (the ingress bench's sink).
 */
export async function startOtlpSink({ keep = true } = {}): Promise<OtlpSink> {
  const kept: SunkSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      if (keep) chunks.push(chunk);
    });
    req.on('end', () => {
      if (keep && req.url === '/v1/traces') kept.push(...spansOf(Buffer.concat(chunks)));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    spans: () => [...kept],
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function spansOf(body: Buffer): SunkSpan[] {
  const request = JSON.parse(body.toString('utf8')) as OtlpRequest;
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = textsOf(resourceSpans.resource?.attributes)['service.name'] ?? '';
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        attributes: textsOf(span.attributes),
        events: (span.events ?? []).map((event) => ({
          name: event.name,
          attributes: textsOf(event.attributes),
        })),
        statusMessage: span.status?.message ?? '',
      })),
    );
  });
}

function textsOf(attributes: OtlpAttribute[] | undefined): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const { key, value } of attributes ?? []) texts[key] = textOf(value);
  return texts;
}

/** A value as text; an array's items joined by commas. */
function textOf(value: OtlpValue): string {
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(textOf).join(',');
  return String(value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue);
}

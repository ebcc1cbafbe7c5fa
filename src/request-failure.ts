/** An error or one of its causes, as Node and undici shape them (duck-typed: another realm's). */
interface Failure {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly hostname?: unknown;
  /** OpenSSL's reason (`wrong version number`), where its message is a dump of its error queue. */
  readonly reason?: unknown;
  readonly cause?: unknown;
  readonly errors?: unknown;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/;

const BY_CODE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  UND_ERR_SOCKET: 'connection closed by the server',
};

/**
 * Why a request got no answer, named (fetch says only "fetch failed"; the cause chain says why):
 * DNS, connection refused, TLS, timeout, or the innermost message with its code.
 */
export function requestFailureOf(error: unknown, timeoutMs: number): string {
  const chain = causesOf(error);
  if (chain.some((one) => one.name === 'TimeoutError')) {
    return `timeout: no answer within ${String(timeoutMs)} ms`;
  }
  for (const one of [...chain].reverse()) {
    const code = typeof one.code === 'string' ? one.code : undefined;
    if (code === undefined) continue;
    const detail = `${textOf(one)} (${code})`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      const host = typeof one.hostname === 'string' ? ` ${one.hostname}` : '';
      return `DNS: cannot resolve${host} (${code})`;
    }
    if (TLS_CODE.test(code)) {
      const reason = typeof one.reason === 'string' ? one.reason : textOf(one).split('\n')[0];
      return `TLS: ${reason ?? ''} (${code})`;
    }
    const named = BY_CODE[code];
    if (named !== undefined) return `${named} (${code})`;
    return detail;
  }
  return chain.map(textOf).join(': ');
}

/** The error, its causes in turn, and a dual-stack connect's several errors. */
function causesOf(error: unknown): Failure[] {
  const chain: Failure[] = [];
  let next: unknown = error;
  while (typeof next === 'object' && next !== null && chain.length < 8) {
    const one = next as Failure;
    chain.push(one);
    if (Array.isArray(one.errors)) chain.push(...(one.errors as Failure[]));
    next = one.cause;
  }
  return chain.length === 0 ? [{ message: String(error) }] : chain;
}

function textOf(one: Failure): string {
  return typeof one.message === 'string' && one.message !== '' ? one.message : String(one.name);
}

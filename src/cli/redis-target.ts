/** `host:port/db` of a Redis URL for messages: never its user or password. */
export function redisTarget(redisUrl: string): string {
  try {
    const url = new URL(redisUrl);
    return `${url.hostname}:${url.port === '' ? '6379' : url.port}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

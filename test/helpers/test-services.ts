/**
 * The addresses of the servers the tests use. jest's global set-up (test/services/global-setup.ts)
 * starts a private instance of each on a free loopback port and hands its address over in these
 * variables; a test never uses a server on its default port.
 */
function serviceUrl(variable: string): string {
  const url = process.env[variable];
  if (url === undefined || url === '') {
    throw new Error(
      `${variable} is not set: run the tests through \`npm test\`, whose global set-up starts the private servers`,
    );
  }
  return url;
}

export const TEST_REDIS_URL = serviceUrl('TEST_REDIS_URL');
export const TEST_POSTGRES_URL = serviceUrl('TEST_POSTGRES_URL');
export const TEST_AMQP_URL = serviceUrl('TEST_AMQP_URL');
export const TEST_NATS_URL = serviceUrl('TEST_NATS_URL');
export const TEST_MQTT_URL = serviceUrl('TEST_MQTT_URL');

/** Host and port of a service's URL, e.g. for a proxy in front of it. */
export function hostAndPort(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}

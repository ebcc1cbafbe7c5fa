// Interim: the machine's own servers until the private ones are started here.
export default function globalSetup(): void {
  const defaults: Record<string, string> = {
    TEST_REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    TEST_POSTGRES_URL: 'postgres://postgres@127.0.0.1:5432/test',
    TEST_AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
    TEST_NATS_URL: 'nats://127.0.0.1:4222',
    TEST_MQTT_URL: 'mqtt://127.0.0.1:1883',
  };
  for (const [key, value] of Object.entries(defaults)) process.env[key] ??= value;
}

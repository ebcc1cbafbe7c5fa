import net from 'node:net';
import pg from 'pg';

/**
 * Opens a connection to 127.0.0.1:port, sends `hello` (if any) and resolves true when the first
 * bytes back satisfy `accept`; false on any error, refusal or silence within a second.
 */
function tcpAnswers(
  port: number,
  hello: Buffer | undefined,
  accept: (first: Buffer) => boolean,
): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => {
      if (hello !== undefined) socket.write(hello);
    });
    socket.once('data', (first: Buffer) => done(accept(first)));
  });
}

export const redisAnswers = (port: number): Promise<boolean> =>
  tcpAnswers(port, Buffer.from('PING\r\n'), (first) => first.toString().startsWith('+PONG'));

/** The AMQP 0-9-1 protocol header; a broker answers with connection.start, a method frame (1). */
export const amqpAnswers = (port: number): Promise<boolean> =>
  tcpAnswers(port, Buffer.from('AMQP\x00\x00\x09\x01', 'latin1'), (first) => first[0] === 1);

/** NATS greets with INFO; JetStream is on when it says so. */
export const natsAnswers = (port: number): Promise<boolean> =>
  tcpAnswers(port, undefined, (first) => /"jetstream":true/.test(first.toString()));

/** MQTT 3.1.1 CONNECT (clean session, client id "probe"); a broker answers CONNACK (0x20). */
export const mqttAnswers = (port: number): Promise<boolean> =>
  tcpAnswers(
    port,
    Buffer.from([16, 17, 0, 4, 77, 81, 84, 84, 4, 2, 0, 10, 0, 5, 112, 114, 111, 98, 101]),
    (first) => first[0] === 0x20,
  );

export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

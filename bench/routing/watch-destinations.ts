import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Connection, Consumer } from 'rabbitmq-client';

/** An exclusive queue bound to every key of the exchange; resolves once it is consuming. */
export async function consumeExchange(
  rabbit: Connection,
  exchange: string,
  onId: (id: string) => void,
): Promise<Consumer> {
  const consumer = rabbit.createConsumer(
    {
      queue: `${exchange}-seen`,
      queueOptions: { exclusive: true },
      queueBindings: [{ exchange, routingKey: '#' }],
      qos: { prefetchCount: 500 },
    },
    (message) => {
      onId(String(message.messageId));
    },
  );
  // The queue exists only once the consumer is set up: publishes before it would go nowhere.
  await new Promise<void>((resolve) => consumer.once('ready', () => resolve()));
  return consumer;
}

/**
 * Reads the `*.jsonl` files of `dir` as they grow (the archive's day files, or the peer's one
 * file) and reports each event id once it is on disk.
 */
export function tailJsonLines(dir: string, onId: (id: string) => void): { stop: () => void } {
  const offsets = new Map<string, number>();
  const rests = new Map<string, string>();
  let busy = false;
  const readOne = async (file: string): Promise<void> => {
    const handle = await open(file, 'r').catch(() => undefined);
    if (handle === undefined) return;
    try {
      const from = offsets.get(file) ?? 0;
      const { size } = await handle.stat();
      if (size <= from) return;
      const buffer = Buffer.alloc(size - from);
      await handle.read(buffer, 0, buffer.length, from);
      offsets.set(file, size);
      const lines = ((rests.get(file) ?? '') + buffer.toString('utf8')).split('\n');
      rests.set(file, lines.pop() ?? '');
      for (const line of lines) if (line !== '') onId((JSON.parse(line) as { id: string }).id);
    } finally {
      await handle.close();
    }
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const day = `${new Date().toISOString().slice(0, 10)}.jsonl`;
    void Promise.all([readOne(path.join(dir, day)), readOne(path.join(dir, 'peer.jsonl'))]).finally(
      () => {
        busy = false;
      },
    );
  }, 10);
  return { stop: () => clearInterval(timer) };
}

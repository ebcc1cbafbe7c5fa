import { spawn } from 'node:child_process';
import type { CanonicalEvent } from '../../src/events/canonical-event';
import { createLogger } from '../../src/logger';
import { createDestination } from '../../src/routes/create-destination';
import { DESTINATION_ADAPTERS } from '../../src/routes/destinations';
import type { DestinationKind } from '../../src/routes/destinations';
import { destinationAdapterOf } from '../../src/routes/destinations/destination-adapter-of';
import { TEST_REDIS_URL } from './test-services';

/** How one delivery ended in the child, and how the child itself ended. */
export interface ChildDelivery {
  /** The child's exit code: 0 when it lived through the delivery and a second after it. */
  exitCode: number | null;
  delivered: boolean;
  error?: {
    name: string;
    message: string;
    retryable?: boolean | undefined;
    field?: string | undefined;
  };
  stderr: string;
}

interface Order {
  kind: DestinationKind;
  options: unknown;
  event: CanonicalEvent;
}

/**
 * One delivery through the real adapter of `kind` in a process of its own (this file, run with
 * tsx), so a throw that escapes the adapter ends that process, not the test's: the exit code says.
 * The order goes on stdin (an event may be far larger than an argument may be).
 */
export function deliverInChild(order: Order): Promise<ChildDelivery> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(JSON.stringify(order));
  return new Promise((resolve) => {
    child.once('exit', (exitCode) => {
      const reported = /^RESULT (.*)$/m.exec(stdout)?.[1];
      const result =
        reported === undefined ? { delivered: false } : (JSON.parse(reported) as object);
      resolve({ exitCode, delivered: false, ...result, stderr: stderr.slice(0, 4000) });
    });
  });
}

async function deliverOnce(order: Order): Promise<void> {
  const { kind } = order;
  const options = destinationAdapterOf(DESTINATION_ADAPTERS, kind).options.parse(order.options);
  const destination = createDestination({ kind, options } as never, {
    route: 'child-route',
    logger: createLogger({ level: 'silent', name: 'child' }),
    redisUrl: TEST_REDIS_URL,
  });
  let result: Omit<ChildDelivery, 'exitCode' | 'stderr'>;
  try {
    await destination.deliver(order.event);
    result = { delivered: true };
  } catch (error) {
    const { name, message, retryable, field } = error as Error & {
      retryable?: boolean;
      field?: string;
    };
    result = {
      delivered: false,
      error: { name, message: message.slice(0, 500), retryable, field },
    };
  }
  // A throw out of a client's writer comes a turn or more later: live a second before saying so.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await destination.close();
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

if (require.main === module) {
  let input = '';
  process.stdin.on('data', (chunk: Buffer) => (input += chunk.toString()));
  process.stdin.on('end', () => {
    void deliverOnce(JSON.parse(input) as Order).then(() => process.exit(0));
  });
}

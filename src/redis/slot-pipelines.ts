import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './redis-client';

export interface SlotPipelines {
  /** The pipeline for commands on the keys of the queue `queueName` (or keys tagged with it). */
  of(queueName: string): ChainableCommander;
  /** Sends every pipeline; resolves when all are answered, rejects with the first failure. */
  exec(): Promise<void>;
}

/**
 * Pipelines for commands on the keys of several queues: one for all of them on one Redis (one
 * round trip), one per queue on a cluster, where a pipeline must keep to one slot and each queue
 * is a slot of its own (src/redis/hash-tag.ts); those are sent side by side.
 */
export function slotPipelines(connection: RedisClient): SlotPipelines {
  const byQueue = new Map<string, ChainableCommander>();
  return {
    of(queueName) {
      const group = connection.isCluster ? queueName : '';
      let pipeline = byQueue.get(group);
      if (pipeline === undefined) {
        pipeline = connection.pipeline();
        byQueue.set(group, pipeline);
      }
      return pipeline;
    },
    async exec() {
      await Promise.all([...byQueue.values()].map((pipeline) => pipeline.exec()));
    },
  };
}

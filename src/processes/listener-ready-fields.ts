import type { WebConfig } from '../config';
import type { ListenerProcess } from './listener-process';

/** The fields of the listener's `listener ready` line: where it listens and what it serves. */
export function listenerReadyFields(
  config: WebConfig,
  listener: ListenerProcess,
  ready: { port: number; host: string; tracing: boolean },
): Record<string, unknown> {
  return {
    port: ready.port,
    host: ready.host,
    redis: redisModeOf(config),
    ackReplicas: config.REDIS_ACK_REPLICAS,
    path: listener.members === undefined ? config.WEBHOOK_PATH : `${config.WEBHOOK_PATH}/{code}`,
    institutions: listener.members?.map((member) => member.code),
    queues: listener.queues.map((one) => one.queue.name),
    metrics: '/metrics',
    tracing: ready.tracing,
    spool: config.SPOOL_DIR ?? null,
  };
}

/** How the listener reaches Redis: one server, through Sentinel, or a cluster. */
function redisModeOf(config: WebConfig): 'REDIS_URL' | 'sentinel' | 'cluster' {
  if (config.REDIS_CLUSTER_NODES !== undefined) return 'cluster';
  return config.REDIS_SENTINELS === undefined ? 'REDIS_URL' : 'sentinel';
}

/** The history outbox stream of one deployment: `<QUEUE_NAME>:history`, beside its queues' keys. */
export function historyStreamKey(queueName: string): string {
  return `${queueName}:history`;
}

import { createRequire } from 'node:module';

// cluster-key-slot is ioredis' own slot hash (CRC16 of the key, or of its first `{…}` part, mod
// 16384); it ships no types, so it is loaded here with the one signature this project calls.
const calculateSlot = createRequire(__filename)('cluster-key-slot') as (key: string) => number;

/** The Redis Cluster slot of `key`. */
export function keySlot(key: string): number {
  return calculateSlot(key);
}

// cluster-key-slot (ioredis' own slot hash: CRC16 of the key or its `{tag}`, mod 16384) has no
// types of its own: what this project calls of it.
declare module 'cluster-key-slot' {
  /** The cluster slot of one key. */
  function calculateSlot(key: string | Buffer): number;
  namespace calculateSlot {
    /** The slot of several keys, or -1 when they are not all on one slot. */
    function generateMulti(keys: readonly (string | Buffer)[]): number;
  }
  export = calculateSlot;
}

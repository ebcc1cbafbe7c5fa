const UNIT: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** `1mb`, `512kb`, `2048` (the BODY_LIMIT forms config.ts accepts) → bytes, 1024-based. */
export function parseByteSize(size: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(size.trim());
  if (!match) throw new Error(`not a size: ${size}`);
  const unit = UNIT[(match[2] ?? 'b').toLowerCase()] ?? 1;
  return Math.floor(Number(match[1]) * unit);
}

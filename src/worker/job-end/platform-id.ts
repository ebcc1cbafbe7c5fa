import { z } from 'zod';

/**
 * A job or instance id as the platform makes them: digits (`5871043560000561`) or a letter and
 * digits (`S7781`), docs/platform-shapes.md. Spec §2 says only that path variables are strings,
 * so the shape accepted is wider — letters, digits, `_` and `-`, 1 to 64 of them — and excludes
 * what would change the path it is put in: `.`, `..`, `/`, `%`, empty, absurd lengths.
 */
export const PlatformId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not a platform id');
export type PlatformId = z.infer<typeof PlatformId>;

export function isPlatformId(value: unknown): value is PlatformId {
  return PlatformId.safeParse(value).success;
}

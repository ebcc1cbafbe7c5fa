import type { OperationCodes } from './operation-codes';

const segmentsOf = (path: string): string[] => path.split('/').filter((part) => part !== '');

/**
 * The operation a request addresses: `method` and `path` (relative to `/svcws/v1`) against the
 * table's route strings; a trailing slash does not matter, a literal segment wins over a path
 * variable (`/partners/operation/test` over `/partners/{partner_code}`). HEAD reads as GET. A
 * path that leaves its last variable empty (`DELETE /partners/`) still addresses the operation,
 * whose row may have a code for it (401650 identifier empty).
 */
export function findOperation(
  operations: readonly OperationCodes[],
  method: string,
  path: string,
): OperationCodes | undefined {
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const parts = segmentsOf(path);
  return bestMatch(operations, verb, parts) ?? bestMatch(operations, verb, [...parts, '']);
}

function bestMatch(
  operations: readonly OperationCodes[],
  verb: string,
  parts: readonly string[],
): OperationCodes | undefined {
  let best: OperationCodes | undefined;
  let bestLiterals = -1;
  for (const operation of operations) {
    const [routeMethod, routePath = ''] = operation.route.split(' ');
    const pattern = segmentsOf(routePath);
    if (routeMethod !== verb || pattern.length !== parts.length) continue;
    let literals = 0;
    const matches = pattern.every((segment, index) => {
      if (segment.startsWith('{')) return true;
      literals += 1;
      return segment === parts[index];
    });
    if (matches && literals > bestLiterals) {
      best = operation;
      bestLiterals = literals;
    }
  }
  return best;
}

/** The codes the operation may answer with status 400: its row and its chosen general codes. */
export function allowedCodes(operation: OperationCodes): ReadonlySet<string> {
  return new Set([...operation.row, ...(operation.general ?? [])]);
}

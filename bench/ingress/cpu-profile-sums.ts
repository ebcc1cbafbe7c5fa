import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self and total time by function, µs, summed over one V8 CPU profile (idle left out). */
export interface ProfileSums {
  self: Map<string, number>;
  total: Map<string, number>;
  /** All sampled time but idle, µs. */
  busyUs: number;
}

/**
 * A function's name and module, the same in two trees: the path from `src/` on (the baseline is
 * compiled elsewhere), from inside `node_modules/` for a package, as is for Node's own.
 */
function functionKey(callFrame: ProfileNode['callFrame']): string {
  const name = callFrame.functionName === '' ? '(anonymous)' : callFrame.functionName;
  const { url } = callFrame;
  if (url === '') return name;
  const inPackage = url.lastIndexOf('node_modules/');
  const inSrc = url.lastIndexOf('/src/');
  const module =
    inPackage >= 0
      ? url.slice(inPackage + 'node_modules/'.length)
      : inSrc >= 0
        ? url.slice(inSrc + 1)
        : url.replace(/^file:\/\/.*\/bench\//, 'bench/');
  return `${name} ${module}`;
}

/** Sums a profile written by bench/servers/profile-probe.ts. */
export function profileSums(file: string): ProfileSums {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index + 1] ?? 0;
    const node = byId.get(id);
    if (node === undefined || node.callFrame.functionName === '(idle)') return;
    busyUs += delta;
    const key = functionKey(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + delta);
    // Each function once per sample, however often it recurs in the stack.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (frame !== undefined) seen.add(functionKey(frame.callFrame));
    }
    for (const one of seen) total.set(one, (total.get(one) ?? 0) + delta);
  });
  return { self, total, busyUs };
}

/** The functions whose time per delivery differs most between two profiles, largest first. */
export function largestDifferences(
  before: Map<string, number>,
  beforeDeliveries: number,
  after: Map<string, number>,
  afterDeliveries: number,
  count: number,
): { key: string; beforeUs: number; afterUs: number }[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys]
    .map((key) => ({
      key,
      beforeUs: (before.get(key) ?? 0) / beforeDeliveries,
      afterUs: (after.get(key) ?? 0) / afterDeliveries,
    }))
    .sort((a, b) => Math.abs(b.afterUs - b.beforeUs) - Math.abs(a.afterUs - a.beforeUs))
    .slice(0, count);
}

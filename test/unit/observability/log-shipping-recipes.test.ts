import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '../../..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
/** The stream labels every recipe sets, and the dashboard selects on (logs-dashboard.test.ts). */
const STREAM_LABELS = ['institution', 'process'];
/** The units of deploy/systemd, whose lines go to journald. */
const UNITS = readdirSync(join(ROOT, 'deploy/systemd'))
  .filter((name) => name.endsWith('.service'))
  .map((name) => name.replace(/\.service$/, ''))
  .sort();

interface VectorConfig {
  sources: Record<string, { type: string; include_units?: string[]; include_labels?: string[] }>;
  transforms: Record<string, { type: string; inputs: string[]; source: string }>;
  sinks: Record<string, { type: string; inputs: string[]; labels: Record<string, string> }>;
}

// Neither Alloy nor Vector is packaged by Debian or npm: the recipes are read, not run.
describe('the log shipping recipes (deploy/alloy, deploy/vector)', () => {
  it('Vector: compose containers and the systemd units through one remap to Loki, labelled by process and institution only', () => {
    const config = parse(read('deploy/vector/vector.yaml')) as VectorConfig;
    const kinds = Object.values(config.sources).map((source) => source.type);
    expect(kinds.sort()).toEqual(['docker_logs', 'journald']);
    const journald = Object.values(config.sources).find((source) => source.type === 'journald');
    expect([...(journald?.include_units ?? [])].sort()).toEqual(UNITS);
    const { loki } = config.sinks;
    expect(loki?.type).toBe('loki');
    expect(Object.keys(loki?.labels ?? {}).sort()).toEqual(STREAM_LABELS);
    const remap = config.transforms[loki?.inputs[0] ?? ''];
    expect(remap?.inputs.sort()).toEqual(Object.keys(config.sources).sort());
    // The listener's unit is labelled as its compose service.
    expect(remap?.source).toContain('if .process == "listener" { .process = "web" }');
  });

  it('Alloy: the same two sources, the same two labels, and every unit of deploy/systemd', () => {
    const config = read('deploy/alloy/config.alloy');
    const targets = [...config.matchAll(/target_label\s*=\s*"([^"]+)"/g)].map((match) => match[1]);
    const fromJson = [...config.matchAll(/stage\.labels\s*\{\s*values\s*=\s*\{\s*(\w+)/g)].map(
      (match) => match[1],
    );
    expect([...new Set([...targets, ...fromJson])].sort()).toEqual(STREAM_LABELS);
    expect(config).toMatch(/loki\.source\.docker "svcws"/);
    expect(config).toMatch(/loki\.source\.journal "svcws"/);
    const units = [...config.matchAll(/_SYSTEMD_UNIT=([\w-]+)\.service/g)].map((match) => match[1]);
    expect(units.sort()).toEqual(UNITS);
    expect(config).not.toMatch(/eventId|requestId/);
  });
});

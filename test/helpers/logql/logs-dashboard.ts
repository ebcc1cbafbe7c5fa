import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { interpolated, planOf } from './logql-plan';
import type { LogqlPlan } from './logql-plan';

/** One query of the Loki dashboard (deploy/grafana/svcws-logs.json). */
export interface DashboardQuery {
  readonly panel: string;
  readonly refId: string;
  readonly expr: string;
  /** As Grafana sends it: `$__interval` 1m, every institution. */
  readonly sent: string;
  readonly plan: LogqlPlan;
}

interface Panel {
  readonly title?: string;
  readonly targets?: readonly { refId: string; expr: string }[];
}

export const LOGS_DASHBOARD = join(__dirname, '../../../deploy/grafana/svcws-logs.json');

/** Grafana's variables as the dashboard's "All" fills them. */
const ALL_INSTITUTIONS = { __interval: '1m', institution: '.+' } as const;

/** Every query of the Loki dashboard, read with Grafana's LogQL grammar. */
export function logsDashboardQueries(): DashboardQuery[] {
  const dashboard = JSON.parse(readFileSync(LOGS_DASHBOARD, 'utf8')) as { panels: Panel[] };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => {
      const sent = interpolated(target.expr, ALL_INSTITUTIONS);
      return {
        panel: panel.title ?? '',
        refId: target.refId,
        expr: target.expr,
        sent,
        plan: planOf(sent),
      };
    }),
  );
}

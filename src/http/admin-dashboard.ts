// Moved to the console (src/console/admin-dashboard.ts); kept until bin/web.ts stops mounting it.
export { createAdminDashboard } from '../console/admin-dashboard';
export type { AdminDashboardOptions } from '../console/admin-dashboard';

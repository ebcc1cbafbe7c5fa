import type { Server } from 'node:http';

/**
 * CPU time per request is steadier than req/s on a small shared machine. On SIGUSR2 the server
 * prints `cpu_us=<n> requests=<n>` for the requests since the last SIGUSR2 (the load generator
 * sends one before and after each run).
 */
export function reportCpuPerRequest(server: Server): void {
  let requests = 0;
  let since = process.cpuUsage();
  server.on('request', () => {
    requests++;
  });
  process.on('SIGUSR2', () => {
    const cpu = process.cpuUsage(since);
    process.stdout.write(`cpu_us=${cpu.user + cpu.system} requests=${requests}\n`);
    requests = 0;
    since = process.cpuUsage();
  });
}

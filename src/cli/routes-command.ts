import type { CliIo } from './cli-io';
import { routesListCommand } from './routes-list-command';
import { routesPauseCommand } from './routes-pause-command';
import { routesReplayCommand } from './routes-replay-command';
import { routesTestCommand } from './routes-test-command';

/** `routes [pause|resume|replay|test] …` (docs/routing.md): one entry in the CLI's command table. */
export async function routesCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'pause':
    case 'resume':
      return routesPauseCommand(sub, rest, io);
    case 'replay':
      return routesReplayCommand(rest, io);
    case 'test':
      return routesTestCommand(rest, io);
    default:
      return routesListCommand(args, io);
  }
}

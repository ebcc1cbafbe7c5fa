import { isRecord } from '../is-record';
const NAME = /^[a-z0-9-]{1,64}$/;

/**
 * `route "loans": to.amqp.url` for a path into the routes file, read from the raw tree: the route
 * is named by its `name` when it has a valid one, by its position otherwise. Names and field
 * paths only: no value is ever put in a message.
 */
export function routeFieldLabel(raw: unknown, path: readonly PropertyKey[]): string {
  const [top, index, ...field] = path;
  if (top !== 'routes' || typeof index !== 'number') {
    return path.length === 0 ? '(file)' : path.map(String).join('.');
  }
  const routes = isRecord(raw) && Array.isArray(raw.routes) ? (raw.routes as unknown[]) : [];
  const route = routes[index];
  const name = isRecord(route) && typeof route.name === 'string' ? route.name : undefined;
  const label =
    name !== undefined && NAME.test(name)
      ? `route "${name}"`
      : `route #${String(index + 1)} (routes[${String(index)}])`;
  return field.length === 0 ? label : `${label}: ${field.map(String).join('.')}`;
}

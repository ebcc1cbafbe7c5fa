import { CliUsageError } from './cli-usage-error';

/** Parses `--url`: http(s) only. */
export function listenerUrl(command: string, value: string | undefined): URL {
  if (value === undefined) throw new CliUsageError(`${command}: --url <listener> is required`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliUsageError(`${command}: --url is not a URL (expected http(s)://host/path)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliUsageError(`${command}: --url must be http:// or https://`);
  }
  return url;
}

/** Origin and path only: a URL may carry credentials or a token in its query. */
export function printableUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from './proxy-under-test';

export interface LocalCertificate {
  /** `cert.pem` in the directory: self-signed, so it is its own CA too. */
  readonly certFile: string;
  readonly keyFile: string;
  /** The certificate's PEM text, for a client that trusts it. */
  readonly pem: string;
}

/**
 * A self-signed certificate for `localhost`, valid one day, written to `dir` by openssl. It names
 * `altNames` (both `localhost` and 127.0.0.1 unless told): a certificate for the name alone
 * refuses a client that connects to the address.
 */
export async function localCertificate(
  dir: string,
  altNames = 'DNS:localhost,IP:127.0.0.1',
): Promise<LocalCertificate> {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  const made = await runCommand('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
    ...['-subj', '/CN=localhost', '-addext', `subjectAltName=${altNames}`],
    ...['-keyout', keyFile, '-out', certFile],
  ]);
  if (made.code !== 0) throw new Error(`openssl: ${made.output}`);
  return { certFile, keyFile, pem: await readFile(certFile, 'utf8') };
}

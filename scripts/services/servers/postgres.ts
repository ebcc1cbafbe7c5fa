import { execFile } from 'node:child_process';
import { chown } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { findBinary, postgresBinDirs } from '../find-binary';
import { freePort } from '../free-port';
import { postgresAnswers } from '../probes';
import type { PrivateServerKind } from '../server-kind';
import { spawnServer } from '../spawn-server';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of its own, made by initdb in the server's directory: trust auth inside
 * it, its socket in that directory, listening on 127.0.0.1 only, database `test`. Durability is
 * off (a test server). PostgreSQL refuses to run as root: as root it runs as an unprivileged user.
 */
export const postgresServer: PrivateServerKind = {
  name: 'postgres',
  title: 'PostgreSQL 15 or later',
  variable: 'TEST_POSTGRES_URL',
  packages: ['postgresql', 'postgresql-client'],
  binaries: [
    { name: 'initdb', dirs: postgresBinDirs },
    { name: 'postgres', dirs: postgresBinDirs },
    { name: 'pg_dump', dirs: postgresBinDirs },
    { name: 'pg_restore', dirs: postgresBinDirs },
  ],
  start: async ({ dir, unprivileged }) => {
    const port = await freePort();
    const data = path.join(dir, 'data');
    const user = unprivileged === undefined ? {} : { uid: unprivileged.uid, gid: unprivileged.gid };
    if (unprivileged !== undefined) await chown(dir, unprivileged.uid, unprivileged.gid);
    const initdb = findBinary('initdb', postgresBinDirs()) ?? 'initdb';
    const initArgs = [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
    ];
    await run(initdb, initArgs, { cwd: dir, ...user });
    const settings = ['listen_addresses=127.0.0.1', `unix_socket_directories=${dir}`, 'fsync=off'];
    settings.push('synchronous_commit=off', 'full_page_writes=off', 'max_connections=400');
    const args = ['-D', data, '-p', String(port), ...settings.flatMap((each) => ['-c', each])];
    const binary = findBinary('postgres', postgresBinDirs()) ?? 'postgres';
    const server = spawnServer('postgres', binary, args, { dir, ...user });
    const admin = `postgres://postgres@127.0.0.1:${String(port)}/postgres`;
    // SIGQUIT is PostgreSQL's immediate shutdown: a test cluster keeps nothing worth a checkpoint.
    const stop = (): Promise<void> => server.stop('SIGQUIT');
    try {
      await server.ready(() => postgresAnswers(admin));
      await createDatabase(admin, 'test');
    } catch (error) {
      await stop();
      throw error;
    }
    return { url: `postgres://postgres@127.0.0.1:${String(port)}/test`, stop };
  },
};

async function createDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findBinary } from '../find-binary';
import { freePort } from '../free-port';
import { mqttAnswers } from '../probes';
import type { PrivateServerKind } from '../server-kind';
import { spawnServer } from '../spawn-server';

/** Mosquitto (MQTT) on a free loopback port, anonymous, nothing kept. */
export const mosquittoServer: PrivateServerKind = {
  name: 'mosquitto',
  title: 'Mosquitto (MQTT)',
  variable: 'TEST_MQTT_URL',
  packages: ['mosquitto'],
  binaries: [{ name: 'mosquitto' }],
  start: async ({ dir }) => {
    const port = await freePort();
    const config = path.join(dir, 'mosquitto.conf');
    const lines = [
      `listener ${String(port)} 127.0.0.1`,
      'allow_anonymous true',
      'persistence false',
    ];
    await writeFile(config, `${lines.join('\n')}\n`);
    const binary = findBinary('mosquitto') ?? 'mosquitto';
    const server = spawnServer('mosquitto', binary, ['-c', config], { dir });
    await server.ready(() => mqttAnswers(port));
    return { url: `mqtt://127.0.0.1:${String(port)}`, stop: () => server.stop() };
  },
};

import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { metricsTokenGuard } from '../../../src/metrics/metrics-token-guard';

const TOKEN = 'metrics-token-of-at-least-32-characters';

/** A scrape from one loopback address (another client): its status once answered. */
function scrape(url: string, from: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { headers: { authorization: `Bearer ${token}` }, localAddress: from, agent: false },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('the overall budget of refused scrapes', () => {
  let server: http.Server;
  let url: string;

  beforeEach(async () => {
    const guard = metricsTokenGuard({
      token: TOKEN,
      failuresPerMinute: 10,
      overallFailuresPerMinute: 3,
      // Long enough that the right scrapes below are answered well inside it.
      windowMs: 10_000,
    });
    const app = express().get('/metrics', ...guard, (_req, res) => {
      res.send('ok');
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/metrics`;
  });
  afterEach(() => {
    server.closeAllConnections();
    server.close();
  });

  it('holds wrong tokens past it to the window’s end, and answers a right token at once', async () => {
    const spent = await Promise.all(
      ['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((from) => scrape(url, from, 'guess')),
    );
    expect(spent).toEqual([401, 401, 401]);
    let heldAnswer: number | undefined;
    const held = scrape(url, '127.0.0.5', 'guess').then((status) => (heldAnswer = status));

    const rights = [await scrape(url, '127.0.0.6', TOKEN), await scrape(url, '127.0.0.2', TOKEN)];

    expect(rights).toEqual([200, 200]);
    expect(heldAnswer).toBeUndefined();
    expect(await held).toBe(401);
  }, 30_000);
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/run-cli';
import { sha256Hex } from '../../../src/console';
import { captureIo } from '../../component/cli/cli-io-capture';
import {
  launchTestBrowser,
  screenshotWithoutViolations,
  signedInPage,
} from '../../helpers/console-browser';
import type { TestBrowser } from '../../helpers/console-browser';
import { spawnWorker, killChildren } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';
import { startClusterPipeline } from './support/cluster-pipeline';
import type { ClusterPipeline } from './support/cluster-pipeline';

const TOKEN = 'a-console-token-for-the-cluster-test-0001';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface NodeView {
  node: string;
  role: string;
  state: string;
  slots: number;
}

describe('the console on a Redis Cluster', () => {
  let pipeline: ClusterPipeline;
  let consoleChild: ChildWorker;
  let url: string;
  let browser: TestBrowser;
  beforeAll(async () => {
    pipeline = await startClusterPipeline();
    const tokens = join(pipeline.env.RECORDS_DIR ?? '', '..', 'tokens.yaml');
    await writeFile(
      tokens,
      `tokens:\n  - { name: ops, sha256: ${sha256Hex(TOKEN)}, role: operator }\n`,
    );
    consoleChild = spawnWorker('src/bin/console.ts', {
      ...pipeline.env,
      CONSOLE_TOKENS_FILE: tokens,
      CONSOLE_PORT: '0',
    });
    const ready = await consoleChild.waitForLine((line) => line.msg === 'console ready');
    url = `http://127.0.0.1:${String(ready.port)}`;
    browser = await launchTestBrowser();
  });
  afterAll(async () => {
    await browser.close();
    await killChildren([consoleChild]);
    await pipeline.close();
  });

  const overview = async (): Promise<{ status: number; nodes: NodeView[]; members: number }> => {
    const answer = await fetch(`${url}/api/v1/overview`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const body = (await answer.json()) as {
      health: { redisNodes?: NodeView[] };
      institutions: unknown[];
    };
    return {
      status: answer.status,
      nodes: body.health.redisNodes ?? [],
      members: body.institutions.length,
    };
  };

  it('shows every node in its overview (API and page), with the members read from their primaries', async () => {
    const now = await overview();
    expect(now.status).toBe(200);
    expect(now.members).toBe(3);
    expect(now.nodes).toHaveLength(6);
    expect(now.nodes.filter((one) => one.role === 'primary')).toHaveLength(3);
    expect(now.nodes.every((one) => one.state === 'ok')).toBe(true);

    const page = await signedInPage(browser, url, TOKEN);
    const rows = await page.locator('th', { hasText: 'Redis node' }).allTextContents();
    expect(rows).toHaveLength(6);
    await screenshotWithoutViolations(page, 'cluster-overview');
    await page.close();
  });

  /** `npm run events -- routes --json` on the cluster (the CLI's bounded connection). */
  const routesListed = async (): Promise<{ status: number; names: string[] }> => {
    const io = captureIo({ ...pipeline.env });
    const status = await runCli(['routes', '--json'], io);
    const rows = status === 0 ? (JSON.parse(io.stdout()) as { route: string }[]) : [];
    return { status, names: rows.map((row) => row.route) };
  };

  it('lets the CLI read the route queues on the cluster', async () => {
    expect(await routesListed()).toEqual({ status: 0, names: ['hook', 'archive'] });
  });

  it('keeps answering while a replica is lost, and says which one', async () => {
    const replica = (await pipeline.cluster.roles()).find((one) => one.role === 'replica');
    const node = pipeline.cluster.nodes.find(({ port }) => port === replica?.port);
    await node?.server.stop();
    const name = `127.0.0.1:${String(replica?.port)}`;
    const deadline = Date.now() + 20_000;
    let seen: NodeView | undefined;
    while (Date.now() < deadline) {
      const now = await overview();
      expect(now.status).toBe(200);
      seen = now.nodes.find((one) => one.node === name);
      if (seen?.state === 'failed') break;
      await sleep(250);
    }
    expect(seen).toMatchObject({ role: 'replica', state: 'failed' });
    expect(await routesListed()).toEqual({ status: 0, names: ['hook', 'archive'] });

    const page = await signedInPage(browser, url, TOKEN);
    const row = page.locator('tr', { has: page.locator('th', { hasText: name }) });
    expect(await row.textContent()).toContain('not answering');
    await screenshotWithoutViolations(page, 'cluster-overview-replica-lost');
    await page.close();
    await node?.server.start();
  });

  it('keeps answering while a primary fails over, and shows its replica promoted', async () => {
    const primary = (await pipeline.cluster.roles()).find(
      (one) => one.role === 'primary' && one.slots.length > 0,
    );
    const node = pipeline.cluster.nodes.find(({ port }) => port === primary?.port);
    await node?.server.stop();
    const name = `127.0.0.1:${String(primary?.port)}`;
    const deadline = Date.now() + 30_000;
    let now = await overview();
    const promoted = (): boolean =>
      now.nodes.some((one) => one.node === name && one.state === 'failed') &&
      now.nodes.filter((one) => one.role === 'primary' && one.state === 'ok').length === 3;
    while (!promoted() && Date.now() < deadline) {
      // The console answers throughout: a section whose primary is away is said unreadable.
      expect(now.status).toBe(200);
      await sleep(250);
      now = await overview();
    }
    expect(promoted()).toBe(true);
    await pipeline.cluster.settled();
    expect(await routesListed()).toEqual({ status: 0, names: ['hook', 'archive'] });
    await node?.server.start();
  });
});

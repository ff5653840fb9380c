// Starts the real release binary on a fresh SQLite data dir (and a free loopback port) serving
// the built UI, plus the fake upstream; the tests reach both through `inject`.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import type { TestProject } from 'vitest/node';

import { ARTIFACTS } from './browser';
import { startFakeOpenAi } from './fake-openai';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    /** A second server with several Workspaces allowed (`LANGBOT_MULTI_WORKSPACE`). */
    multiUrl: string;
    /** A third server for the bots, pipelines and monitoring flows. */
    part2Url: string;
    upstream: string;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => ok(port));
    });
  });
}

async function waitReady(url: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`langbot exited with ${server.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('langbot did not become ready in 30 s');
}

export interface Server {
  url: string;
  stop: () => Promise<void>;
}

/** The release binary on a fresh SQLite data dir and a free loopback port, serving web/dist. */
export async function startServer(bin: string, env: Record<string, string>): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'langbot-e2e-data-'));
  const port = await freePort();
  const server = spawn(bin, ['serve'], {
    env: {
      ...process.env,
      LANGBOT_HTTP_ADDR: `127.0.0.1:${port}`,
      LANGBOT_DATA_DIR: dataDir,
      LANGBOT_WEB_DIR: resolve('dist'),
      LANGBOT_LOG: process.env.LANGBOT_LOG ?? 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, server);
  return {
    url,
    stop: async () => {
      if (server.exitCode === null) {
        const exited = new Promise((r) => server.once('exit', r));
        server.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject) {
  const bin = process.env.LANGBOT_BIN ?? resolve(process.env.CARGO_TARGET_DIR ?? '/var/cache/langbot-target', 'release/langbot');
  for (const report of ['axe.json', 'timings.json']) rmSync(join(ARTIFACTS, report), { force: true });
  const upstream = await startFakeOpenAi();
  const main = await startServer(bin, {});
  const multi = await startServer(bin, { LANGBOT_MULTI_WORKSPACE: 'true' });
  const part2 = await startServer(bin, {});
  project.provide('baseUrl', main.url);
  project.provide('multiUrl', multi.url);
  project.provide('part2Url', part2.url);
  project.provide('upstream', upstream.baseUrl);
  return async () => {
    await Promise.all([main.stop(), multi.stop(), part2.stop()]);
    await upstream.close();
  };
}

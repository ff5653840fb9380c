// LangBot 4.11.2's own web UI (from its PyPI wheel, see langbot-dist.ts) served by this server:
// it logs in through LangBot's form, reaches the quick-start wizard with our adapter icons,
// and skips it. Every /api/ response is counted by status and printed; the calls this server
// implements for that UI must all succeed.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './api';
import { launch } from './browser';
import { type Server, startServer } from './global-setup';
import { langbotDist } from './langbot-dist';

const OWNER = 'owner@example.com';
const PASSWORD = 'first-password-1';
// The calls made for LangBot's UI: none of them may fail on the paths driven here.
const IMPLEMENTED = [
  'GET /api/v1/system/info',
  'GET /api/v1/user/account-info',
  'POST /api/v1/user/auth',
  'GET /api/v1/workspaces/bootstrap',
  'GET /api/v1/user/info',
  'GET /api/v1/workspaces/current',
  'GET /api/v1/agents',
  'GET /api/v1/platform/adapters',
  'POST /api/v1/system/wizard/completed',
];

let server: Server;
let browser: Browser;
let page: Page;
const seen: { status: number; call: string }[] = [];

beforeAll(async () => {
  const bin = process.env.LANGBOT_BIN ?? `${process.env.CARGO_TARGET_DIR ?? '/var/cache/langbot-target'}/release/langbot`;
  server = await startServer(bin, { LANGBOT_WEB_DIR: langbotDist() });
  expect((await call(server.url, 'POST', '/api/v1/user/init', { body: { user: OWNER, password: PASSWORD } })).status).toBe(200);
  browser = await launch();
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 860 }, locale: 'en-US' });
  context.setDefaultTimeout(15_000);
  page = await context.newPage();
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/')) seen.push({ status: r.status(), call: `${r.request().method()} ${url.pathname}` });
  });
}, 300_000);

afterAll(async () => {
  const byStatus: Record<number, number> = {};
  for (const s of seen) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
  const failed = [...new Set(seen.filter((s) => s.status >= 400).map((s) => `${s.status} ${s.call}`))];
  console.log(`LangBot UI API calls by status: ${JSON.stringify(byStatus)}`);
  console.log(`LangBot UI calls still failing:\n  ${failed.join('\n  ')}`);
  await browser.close();
  await server.stop();
});

describe("LangBot's own web UI", () => {
  it('logs in through its form and reaches the wizard with adapter icons', { timeout: 240_000 }, async () => {
    await page.goto('/login', { timeout: 90_000 });
    await page.locator('input[type=password]').waitFor({ timeout: 60_000 });
    await page.locator('input').first().fill(OWNER);
    await page.locator('input[type=password]').first().fill(PASSWORD);
    await page.locator('button[type=submit]').first().click();
    await page.getByText('Select a Platform').waitFor({ timeout: 60_000 });
    expect(new URL(page.url()).pathname).toBe('/wizard');
    await page.getByText('Telegram').first().waitFor();
    const icon = await call(server.url, 'GET', '/api/v1/platform/adapters/telegram/icon');
    expect(icon.status).toBe(200);
    expect(seen.some((s) => s.call.endsWith('/icon') && s.status === 200)).toBe(true);
  });

  it('skips the wizard and leaves it for good', async () => {
    await page.getByRole('button', { name: 'Skip' }).click();
    // It asks to confirm.
    await page.getByRole('button', { name: 'OK', exact: true }).click();
    await expect.poll(() => new URL(page.url()).pathname).not.toBe('/wizard');
    const token = await page.evaluate(() => localStorage.getItem('token') ?? '');
    const info = await call(server.url, 'GET', '/api/v1/system/info', { token });
    expect(info.data.wizard_status).toBe('skipped');
  });

  it('answers every call it implements for this UI without an error', () => {
    for (const wanted of IMPLEMENTED) {
      const answers = seen.filter((s) => s.call === wanted);
      expect(answers.length, wanted).toBeGreaterThan(0);
      expect(answers.filter((s) => s.status >= 400), wanted).toEqual([]);
    }
    expect(seen.filter((s) => s.call.endsWith('/icon') && s.status >= 400)).toEqual([]);
  });
});

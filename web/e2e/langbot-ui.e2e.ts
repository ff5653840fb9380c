// LangBot 4.11.2's own web UI (from its PyPI wheel, see langbot-dist.ts) served by this server,
// driven through its own forms as a new LangBot user would: log in, skip the quick-start
// wizard, open the dashboard, add a provider (against the fake OpenAI upstream) and a model.
// Every /api/ response is recorded; none may fail, and the counts by status and the calls
// answered "not available" are printed for the release note.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';

import { call } from './api';
import { launch, shot } from './browser';
import { type Server, startServer } from './global-setup';
import { langbotDist } from './langbot-dist';

const upstream = inject('upstream');
const OWNER = 'owner@example.com';
const PASSWORD = 'first-password-1';
const PROVIDER = 'Fake OpenAI';
const MODEL = 'fake-gpt';

// Calls this server answers with LangBot's "none / not available" shapes (features it does not
// have: knowledge bases, skills, the assistant, the marketplace, Box, background tasks, release
// checks, user feedback, the legacy-pipeline migration).
const NOT_AVAILABLE = [
  '/api/v1/knowledge/bases',
  '/api/v1/knowledge/migration/status',
  '/api/v1/skills',
  '/api/v1/assistant/conversations',
  '/api/v1/system/tasks',
  '/api/v1/marketplace/plugins',
  '/api/v1/box/status',
  '/api/v1/box/runtime-status',
  '/api/v1/box/sessions',
  '/api/v1/dist/info/releases',
  '/api/v1/dist/info/repo',
  '/api/v1/monitoring/feedback/stats',
  '/api/v1/monitoring/feedback',
  '/api/v1/pipelines/_/migration/preview',
];

interface Seen {
  status: number;
  call: string;
  /** Whether the page held a session token when the call was answered. */
  loggedIn: boolean;
}

let server: Server;
let browser: Browser;
let page: Page;
let loggedIn = false;
const seen: Seen[] = [];

const token = () => page.evaluate(() => localStorage.getItem('token') ?? '');
const api = async (method: string, path: string, body?: unknown) => call(server.url, method, path, { token: await token(), body });

/** Calls LangBot's login page makes before anyone has logged in, answered 401 on purpose: the
 *  token check is how its UI learns there is no session yet. */
const BEFORE_LOGIN_401 = ['GET /api/v1/user/check-token'];
/** A failed call is any answer >= 400 except those. */
const failed = () => seen.filter((s) => s.status >= 400 && !(s.status === 401 && !s.loggedIn && BEFORE_LOGIN_401.includes(s.call)));

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
    if (url.pathname.startsWith('/api/')) seen.push({ status: r.status(), call: `${r.request().method()} ${url.pathname}`, loggedIn });
  });
}, 300_000);

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') await shot(page, `langbot-ui-failed-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
});

afterAll(async () => {
  const byStatus: Record<number, number> = {};
  for (const s of seen) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
  const notAvailable: Record<string, number> = {};
  for (const s of seen) {
    if (NOT_AVAILABLE.includes(s.call.replace(/^\w+ /, ''))) notAvailable[s.call] = (notAvailable[s.call] ?? 0) + 1;
  }
  const distinct = new Set(seen.map((s) => s.call)).size;
  console.log(`LangBot UI API calls: ${seen.length} (${distinct} distinct), by status: ${JSON.stringify(byStatus)}`);
  console.log(`LangBot UI calls answered "not available":\n  ${Object.entries(notAvailable).map(([c, n]) => `${c} ×${n}`).join('\n  ')}`);
  console.log(`LangBot UI calls that failed:\n  ${[...new Set(failed().map((s) => `${s.status} ${s.call}`))].join('\n  ') || '(none)'}`);
  await browser.close();
  await server.stop();
});

/** Closes LangBot's first-visit sidebar tour when it shows. */
async function dismissTour() {
  const tour = page.locator('[data-testid=sidebar-guide]');
  if (await tour.getByText('Skip', { exact: true }).isVisible().catch(() => false)) await tour.getByText('Skip', { exact: true }).click();
}

describe("LangBot's own web UI", () => {
  it('logs in through its form and reaches the wizard with adapter icons', { timeout: 240_000 }, async () => {
    await page.goto('/login', { timeout: 90_000 });
    await page.getByRole('button', { name: 'Login with password' }).waitFor({ timeout: 60_000 });
    // The form re-renders once its start-up calls answer: fill it until the values stay.
    await expect
      .poll(async () => {
        await page.getByPlaceholder('Enter email address').fill(OWNER);
        await page.getByPlaceholder('Enter password').fill(PASSWORD);
        await page.waitForTimeout(300);
        return page.getByPlaceholder('Enter email address').inputValue();
      }, { timeout: 30_000 })
      .toBe(OWNER);
    loggedIn = true;
    await page.locator('button[type=submit]').first().click();
    await page.getByText('Select a Platform').waitFor({ timeout: 60_000 });
    expect(new URL(page.url()).pathname).toBe('/wizard');
    await page.getByText('Telegram').first().waitFor();
    expect(seen.some((s) => s.call.endsWith('/icon') && s.status === 200)).toBe(true);
    await shot(page, 'langbot-ui-wizard');
  });

  it('skips the wizard and leaves it for good', async () => {
    await page.getByRole('button', { name: 'Skip' }).click();
    // It asks to confirm.
    await page.getByRole('button', { name: 'OK', exact: true }).click();
    await expect.poll(() => new URL(page.url()).pathname).not.toBe('/wizard');
    const info = await api('GET', '/api/v1/system/info');
    expect(info.data.wizard_status).toBe('skipped');
    await page.getByText('Execution Success Rate').waitFor({ timeout: 30_000 });
    await dismissTour();
  });

  it('adds a provider and a model through the Models settings', async () => {
    await page.getByText('Models', { exact: true }).first().click();
    await page.getByRole('button', { name: 'Add Provider' }).click();
    const form = page.getByRole('dialog').last();
    await form.locator('input').first().fill(PROVIDER);
    await form.getByRole('button', { name: 'Select Provider Type' }).click();
    await page.getByText('OpenAI-compatible', { exact: true }).click();
    await form.locator('input[name=base_url]').fill(upstream);
    await form.locator('input[name=api_key]').fill('sk-test');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('0 model(s)').waitFor();
    await page.getByRole('dialog').last().getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByPlaceholder('Model Name').fill(MODEL);
    await page.getByRole('button', { name: 'Add', exact: true }).last().click();
    await page.getByText('1 model(s)').waitFor();
    await shot(page, 'langbot-ui-models');

    const providers = (await api('GET', '/api/v1/provider/providers')).data.providers as { name: string; base_url: string; uuid: string }[];
    expect(providers.map((p) => [p.name, p.base_url])).toEqual([[PROVIDER, upstream]]);
    const models = (await api('GET', '/api/v1/provider/models/llm')).data.models as { name: string; provider_uuid: string }[];
    expect(models.map((m) => [m.name, m.provider_uuid])).toEqual([[MODEL, providers[0]?.uuid]]);
    await page.getByRole('dialog').last().getByRole('button', { name: 'Close' }).last().click();
  });

  it('answers every call without an error', () => {
    expect(failed().map((s) => `${s.status} ${s.call}`)).toEqual([]);
    // The calls of the pages driven here reached this server's answers, not the UI's file
    // fallback: each "not available" one was seen.
    for (const path of ['/api/v1/knowledge/bases', '/api/v1/skills', '/api/v1/box/runtime-status']) {
      expect(seen.some((s) => s.call === `GET ${path}` && s.status === 200), path).toBe(true);
    }
  });
});

// LangBot 4.11.2's own web UI (from its PyPI wheel, see langbot-dist.ts) served by this server,
// driven through its own forms as a new LangBot user would: log in, skip the quick-start
// wizard, open the dashboard, add a provider (against the fake OpenAI upstream) and a model,
// create a pipeline through the "Create Processors" form, edit it in its editor and chat with
// it in its debug chat, create an HTTP bot routed to it through the bot form and set it up,
// then open the dashboard again.
// Every /api/ response is recorded; none may fail, and the counts by status and the calls
// answered "not available" are printed for the release note.
import { createHmac } from 'node:crypto';

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
const PIPELINE = 'Support pipeline';
const BOT = 'Support bot';
const CALLBACK = 'http://127.0.0.1:9/callback';
const LANGBOT_RUNNER = 'plugin:langbot-team/LocalAgent/default';

// Calls this server answers with LangBot's "none / not available" shapes (features it does not
// have: knowledge bases, skills, the assistant, the marketplace (its runner search and
// recommendations too), Box, background tasks, release checks, user feedback, the
// legacy-pipeline migration: a pipeline made here with LangBot's runner id is current).
const NOT_AVAILABLE = [
  '/api/v1/knowledge/bases',
  '/api/v1/knowledge/migration/status',
  '/api/v1/skills',
  '/api/v1/assistant/conversations',
  '/api/v1/system/tasks',
  '/api/v1/marketplace/plugins',
  '/api/v1/marketplace/plugins/search',
  '/api/v1/marketplace/extensions/search',
  '/api/v1/marketplace/recommendation-lists',
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

/** Folds LangBot's workspace assistant panel away when it is open: it covers the forms. */
async function foldAssistant() {
  const fold = page.getByRole('button', { name: 'Collapse workspace assistant' });
  if (await fold.isVisible().catch(() => false)) await fold.click();
}

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

  it('creates a pipeline through the "Create Processors" form', async () => {
    await page.locator('button[aria-label="Create Processors"]').click();
    await page.getByText('Choose how it works').waitFor();
    await foldAssistant();
    // A pipeline, the only processor kind here (the form's default choice).
    await page.getByText('Pipeline', { exact: true }).first().click();
    await page.locator('main [role=combobox]').first().click();
    // The built-in agent under LangBot's runner id: LangBot's UI edits only such pipelines.
    await page.getByRole('option', { name: LANGBOT_RUNNER }).click();
    await page.locator('main input[name=name]').fill(PIPELINE);
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('id')).not.toBe('new');
    await page.getByRole('heading', { name: PIPELINE }).waitFor();
    await shot(page, 'langbot-ui-pipeline');

    const pipelines = (await api('GET', '/api/v1/pipelines')).data.pipelines as { uuid: string; name: string; emoji: string; config: { ai: { runner: { id: string } } } }[];
    expect(pipelines.map((p) => [p.name, p.emoji, p.config.ai.runner.id])).toEqual([[PIPELINE, '⚙️', LANGBOT_RUNNER]]);
    expect(new URL(page.url()).searchParams.get('id')).toBe(pipelines[0]?.uuid);
  });

  it('edits the pipeline in its editor and chats with it in its debug chat', async () => {
    // Its editor opened after creating it: editable (no legacy gate), with its guide on top.
    const guide = page.getByText('User guide');
    if (await guide.isVisible().catch(() => false)) await page.getByText('Skip', { exact: true }).last().click();
    expect(await page.getByText('Legacy configuration is read-only').count()).toBe(0);
    // The AI tab: the built-in agent's own form under LangBot's runner id. LangBot names no
    // default model until one is starred, so the pipeline has none yet: pick it.
    await page.getByText('AI', { exact: true }).first().click();
    await page.getByText('Max tool-call rounds').first().waitFor();
    await page.locator('xpath=//*[normalize-space(text())="Primary Model"]/following::button[@role="combobox"][1]').click();
    await page.getByRole('option', { name: MODEL }).click();
    await shot(page, 'langbot-ui-pipeline-ai');
    // The Trigger tab: its label is not tied to its input, so the input after it.
    await page.getByText('Trigger', { exact: true }).first().click();
    await page.locator('xpath=//*[normalize-space(text())="Random response probability"]/following::input[1]').fill('0.25');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const pipelineUuid = new URL(page.url()).searchParams.get('id') ?? '';
    interface Stored {
      trigger: { 'group-respond-rules': { random: number } };
      ai: { runner: { id: string }; runner_config: Record<string, { model: { primary: string } }> };
    }
    const stored = async () => ((await api('GET', `/api/v1/pipelines/${pipelineUuid}`)).data.pipeline as { config: Stored }).config;
    await expect.poll(async () => (await stored()).trigger['group-respond-rules'].random).toBe(0.25);
    const { ai } = await stored();
    const model = ((await api('GET', '/api/v1/provider/models/llm')).data.models as { uuid: string }[])[0]?.uuid;
    expect([ai.runner.id, ai.runner_config[LANGBOT_RUNNER]?.model.primary]).toEqual([LANGBOT_RUNNER, model]);

    // The debug chat (LangBot's WebSocket protocol): a private message answered by the model.
    await page.getByText('Connected', { exact: true }).waitFor();
    await page.getByPlaceholder('Send Private Chat message').fill('Hi there');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Hello from the fake.').waitFor({ timeout: 30_000 }).catch(async (e: unknown) => {
      console.log(JSON.stringify((await api('GET', '/api/v1/monitoring/executions')).data.items));
      throw e;
    });
    await shot(page, 'langbot-ui-debug-chat');
    // Its run logs: the monitoring of this pipeline, where the debug turn is recorded.
    await page.getByText('Run logs', { exact: true }).click();
    await page.waitForLoadState('networkidle');
    await shot(page, 'langbot-ui-pipeline-logs');
    await page.getByText('Configure & debug', { exact: true }).click();
    const history = (await api('GET', `/api/v1/pipelines/${pipelineUuid}/ws/messages/person`)).data.messages as { role: string; content: string }[];
    expect(history.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Hi there'],
      ['assistant', 'Hello from the fake.'],
    ]);
  });

  it('creates an HTTP bot routed to that pipeline through the bot form, then sets it up', async () => {
    await page.locator('button[aria-label="Create Bots"]').click();
    await page.getByText('Choose a platform adapter').waitFor();
    await foldAssistant();
    await page.locator('main input[name=name]').fill(BOT);
    await page.locator('main input[name=description]').fill('Answers over HTTP');
    await page.getByPlaceholder('Search adapters').fill('HTTP');
    await page.getByText('HTTP Bot', { exact: true }).first().click();
    await page.getByRole('button', { name: 'Submit' }).click();
    // The bot's page: its settings, and routes to the pipeline.
    await page.locator('input[name=callback_url]').waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('id')).not.toBe('new');
    await page.getByText(`⚙️ ${PIPELINE}`).first().waitFor();
    await page.locator('input[name=inbound_secret]').fill('inbound-secret-1');
    await page.locator('input[name=callback_url]').fill(CALLBACK);
    await page.getByRole('button', { name: 'Save and enable' }).click();
    await expect.poll(async () => ((await api('GET', '/api/v1/platform/bots')).data.bots as { enable: boolean }[])[0]?.enable).toBe(true);
    await shot(page, 'langbot-ui-bot');

    const pipeline = ((await api('GET', '/api/v1/pipelines')).data.pipelines as { uuid: string }[])[0]?.uuid;
    const bots = (await api('GET', '/api/v1/platform/bots')).data.bots as {
      uuid: string;
      name: string;
      description: string;
      adapter: string;
      enable: boolean;
      adapter_config: Record<string, unknown>;
      event_bindings: { target_type: string; target_uuid: string }[];
    }[];
    expect(bots.map((b) => [b.name, b.description, b.adapter, b.enable])).toEqual([[BOT, 'Answers over HTTP', 'http_bot', true]]);
    const bot = bots[0];
    expect(bot?.adapter_config.callback_url).toBe(CALLBACK);
    // The secret is stored (and shown masked).
    expect(bot?.adapter_config.inbound_secret).toBe('***');
    expect(bot?.event_bindings.length).toBeGreaterThan(0);
    for (const route of bot?.event_bindings ?? []) expect([route.target_type, route.target_uuid]).toEqual(['pipeline', pipeline]);
    expect(new URL(page.url()).searchParams.get('id')).toBe(bot?.uuid);
  });

  it("shows a message the bot received in the bot's Logs and Sessions tabs", async () => {
    const bot = ((await api('GET', '/api/v1/platform/bots')).data.bots as { uuid: string }[])[0]?.uuid ?? '';
    // A signed message from a user, through the bot's own ingress (LangBot's http_bot contract).
    const body = JSON.stringify({ session_id: 'alice', sender: { id: 'alice', name: 'Alice' }, message: [{ type: 'Plain', text: 'hello from alice' }] });
    const ts = String(Math.floor(Date.now() / 1000));
    const signature = `sha256=${createHmac('sha256', 'inbound-secret-1').update(`${ts}.${body}`).digest('hex')}`;
    const sent = await fetch(`${server.url}/bots/${bot}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-lb-timestamp': ts, 'x-lb-signature': signature }, body });
    expect(sent.status).toBe(202);
    await expect
      .poll(async () => ((await api('GET', '/api/v1/monitoring/executions')).data.items as { status: string; mode: string }[]).filter((e) => e.mode === 'real').map((e) => e.status))
      .toEqual(['completed']);
    const guide = page.getByText('User guide');
    if (await guide.isVisible().catch(() => false)) await page.getByText('Skip', { exact: true }).last().click();
    await page.getByText('Logs', { exact: true }).first().click();
    await page.getByText('hello from alice').first().waitFor();
    await shot(page, 'langbot-ui-bot-logs');
    await page.getByText('Sessions', { exact: true }).first().click();
    await page.getByText('alice').first().waitFor();
    await shot(page, 'langbot-ui-bot-sessions');
  });

  it('opens the dashboard again', async () => {
    await page.getByText('Dashboard', { exact: true }).first().click();
    await page.getByText('Execution Success Rate').waitFor();
    await shot(page, 'langbot-ui-dashboard');
  });

  it('answers every call without an error', () => {
    expect(failed().map((s) => `${s.status} ${s.call}`)).toEqual([]);
    // The calls of the pages driven here reached this server's answers, not the UI's file
    // fallback: each "not available" one was seen.
    for (const call of ['GET /api/v1/knowledge/bases', 'GET /api/v1/skills', 'GET /api/v1/box/runtime-status', 'POST /api/v1/marketplace/extensions/search']) {
      expect(seen.some((s) => s.call === call && s.status === 200), call).toBe(true);
    }
  });
});

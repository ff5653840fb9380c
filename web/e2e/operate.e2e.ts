// Bots, pipelines and monitoring on their own fresh server: an http_bot bot → its routes →
// dry-run; a pipeline section edited and saved (a server error at its field); the debug chat
// streamed by the fake model; a signed http_bot message in the live panel without a reload,
// then in the executions table and its detail; reset-context; CSV export.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';

import { call, login } from './api';
import { axe, firstRender, launch, open, shot, type Watched } from './browser';

const baseUrl = inject('part2Url');
const upstream = inject('upstream');
const OWNER = 'ops@example.com';
const PASSWORD = 'operate-password-1';
const SECRET = 'inbound-secret-1';

let browser: Browser;
let view: Watched;
let page: Page;
let token = '';
let pipelineUuid = '';
let botUuid = '';

async function noSeriousAxe(name: string) {
  expect(await axe(page, name)).toEqual([]);
}

beforeAll(async () => {
  browser = await launch(`${baseUrl}/healthz`);
  view = await open(browser, baseUrl);
  page = view.page;
  expect((await call(baseUrl, 'POST', '/api/v1/user/init', { body: { user: OWNER, password: PASSWORD } })).status).toBe(200);
  token = await login(baseUrl, OWNER, PASSWORD);
  const provider = await call(baseUrl, 'POST', '/api/v1/provider/providers', {
    token,
    body: { name: 'Fake AI', requester: 'openai-chat-completions', base_url: upstream, api_keys: ['sk-test'], config: {} },
  });
  expect(provider.status).toBe(200);
  const model = await call(baseUrl, 'POST', '/api/v1/provider/models/llm', {
    token,
    body: { name: 'fake-gpt', provider_uuid: provider.data.uuid, abilities: [], extra_args: {} },
  });
  expect(model.status).toBe(200);
  const listed = await call(baseUrl, 'GET', '/api/v1/pipelines', { token });
  const existing = (listed.data.pipelines as { uuid: string; is_default: boolean }[]).find((p) => p.is_default);
  const config = { ai: { runner_config: { 'local-agent': { model: { primary: model.data.uuid as string } } } } };
  if (existing) {
    pipelineUuid = existing.uuid;
    expect((await call(baseUrl, 'PUT', `/api/v1/pipelines/${pipelineUuid}`, { token, body: { config } })).status).toBe(200);
  } else {
    const created = await call(baseUrl, 'POST', '/api/v1/pipelines', { token, body: { name: 'Support', is_default: true, config } });
    expect(created.status).toBe(200);
    pipelineUuid = created.data.uuid as string;
  }
  await page.goto('/login');
  await page.getByLabel('Email').fill(OWNER);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Models' }).waitFor();
});
afterAll(async () => {
  await browser.close();
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail') await shot(page, `failed-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  expect(view.problems).toEqual([]);
});

describe('bots', () => {
  it('creates an http_bot bot, shows its webhook, and a dry-run shows the matching route', async () => {
    await firstRender(page, '/platform/bots', 'Bots', '/platform/bots (empty)');
    await page.getByText('No bots yet').waitFor();
    await noSeriousAxe('bots-empty');
    await page.getByRole('button', { name: 'Add bot' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Helpdesk');
    await dialog.getByLabel('Inbound signing secret').fill(SECRET);
    await dialog.getByLabel('Callback URL').fill(`${upstream}/callback`);
    await noSeriousAxe('bot-form');
    await shot(page, 'bot-form');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Helpdesk' }).waitFor();
    botUuid = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(await page.getByTestId('webhook-url').textContent()).toContain(`/bots/${botUuid}`);
    await page.getByTestId('route-0').waitFor();

    await page.getByTestId('dry-run-text').fill('hello there');
    await page.getByTestId('dry-run-submit').click();
    const result = page.getByTestId('dry-run-result');
    await expect.poll(() => result.textContent()).toMatch(/Route \d matches/);
    expect(await result.textContent()).toContain('Handled by the pipeline');
    await page.getByTestId('route-matched').waitFor();
    await noSeriousAxe('bot-routes');
    await shot(page, 'bot-routes-dry-run');
  });

  it('shows a server validation error at the condition', async () => {
    const route = page.getByTestId('route-0');
    await route.getByRole('button', { name: 'Add condition' }).click();
    await route.getByLabel('Operator of condition 1').click();
    await page.getByRole('option', { name: 'matches regex' }).click();
    await route.getByLabel('Value of condition 1').fill('(');
    await page.getByTestId('routes-save').click();
    await expect.poll(() => page.getByTestId('route-0-filter-0').textContent()).toContain('regular expression');
    await shot(page, 'bot-route-error');
    // Keyboard reorder: the move buttons and the drag handle both work without a mouse.
    await route.getByRole('button', { name: 'Remove condition 1' }).click();
    await page.getByRole('button', { name: 'Move route 1 down' }).focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('routes-save').click();
    await page.getByText('Routes saved').waitFor();
    const bot = await call(baseUrl, 'GET', `/api/v1/platform/bots/${botUuid}`, { token });
    expect((bot.data.bot as { event_bindings: unknown[] }).event_bindings.length).toBeGreaterThan(0);
  });

  it('lists the bot with its state and the route status tab', async () => {
    await page.getByRole('tab', { name: 'Route status' }).click();
    await page.getByTestId('status-unmatched').waitFor();
    await noSeriousAxe('bot-status');
    await firstRender(page, '/platform/bots', 'Bots', '/platform/bots');
    await page.getByTestId('bot-Helpdesk').waitFor();
    expect(await page.getByTestId('bot-Helpdesk').textContent()).toContain('Receiving messages');
    await noSeriousAxe('bots');
    await shot(page, 'bots');
  });

  it('shows a web chat widget bot’s embed code, whose script the server serves', async () => {
    const created = await call(baseUrl, 'POST', '/api/v1/platform/bots', { token, body: { name: 'Site chat', adapter: 'web_page_bot', adapter_config: {}, enable: true } });
    expect(created.status).toBe(200);
    const uuid = created.data.uuid as string;
    await page.goto(`/platform/bots/${uuid}`);
    const code = page.getByTestId('embed-code');
    await expect.poll(() => code.textContent()).toContain(`/bots/${uuid}/widget.js`);
    expect(await page.getByTestId('webhook-url').count(), 'a widget bot receives no webhooks').toBe(0);
    const src = /src="([^"]+)"/.exec((await code.textContent()) ?? '')?.[1] ?? '';
    const script = await fetch(src);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    await page.getByRole('tab', { name: 'Settings' }).click();
    const field = page.locator('[data-field="embed_code"]');
    await expect.poll(() => field.inputValue()).toContain('widget.js');
    expect(await field.getAttribute('readonly')).not.toBeNull();
    await noSeriousAxe('bot-embed');
    await shot(page, 'bot-embed');
  });
});

describe('pipelines', () => {
  it('saves one section; a reload shows it and the other sections are untouched', async () => {
    const before = (await call(baseUrl, 'GET', `/api/v1/pipelines/${pipelineUuid}`, { token })).data.pipeline as { config: Record<string, unknown> };
    await firstRender(page, '/pipelines', 'Pipelines', '/pipelines');
    await page.getByTestId('default-badge').waitFor();
    await noSeriousAxe('pipelines');
    await shot(page, 'pipelines');
    await page.goto(`/pipelines/${pipelineUuid}?tab=safety`);
    const limit = page.getByTestId('section-safety').getByLabel('Messages per window');
    await limit.fill('42');
    await page.getByTestId('save-safety').click();
    await page.getByText('Safety saved').waitFor();
    await page.reload();
    await expect.poll(() => page.getByTestId('section-safety').getByLabel('Messages per window').inputValue()).toBe('42');
    const after = (await call(baseUrl, 'GET', `/api/v1/pipelines/${pipelineUuid}`, { token })).data.pipeline as { config: Record<string, Record<string, Record<string, unknown>>> };
    expect(after.config.safety?.['rate-limit']?.limitation).toBe(42);
    for (const other of ['trigger', 'ai', 'output']) expect(after.config[other]).toEqual(before.config[other]);
    await noSeriousAxe('pipeline-safety');
    await shot(page, 'pipeline-safety');
    // The AI tab shows one agent form: the picked runner's, not one per runner id.
    await page.goto(`/pipelines/${pipelineUuid}?tab=ai`);
    await page.getByTestId('section-ai').waitFor();
    await expect.poll(() => page.getByTestId('section-ai').locator('legend', { hasText: 'Local agent' }).count()).toBe(1);
    await noSeriousAxe('pipeline-ai');
    await shot(page, 'pipeline-ai');
  });

  it('shows a server validation error at its field', async () => {
    await page.getByRole('tab', { name: 'Trigger' }).click();
    const section = page.getByTestId('section-trigger');
    const ignore = section.getByLabel('Ignore regular expressions');
    await ignore.fill('(');
    await ignore.press('Enter');
    await page.getByTestId('save-trigger').click();
    await expect.poll(() => section.getByText('is not a valid regular expression').count()).toBeGreaterThan(0);
    await shot(page, 'pipeline-error');
  });

  it('debug chat: the fake model answers, the text streaming in, with the model and a link to monitoring', async () => {
    const chunks: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', (f) => typeof f.payload === 'string' && f.payload.includes('"chunk"') && chunks.push(f.payload)));
    await page.goto(`/pipelines/${pipelineUuid}?tab=chat`);
    await expect.poll(() => page.getByTestId('chat-state').textContent()).toBe('Connected');
    await page.getByTestId('chat-input').fill('Hi pipeline');
    await page.getByTestId('chat-send').click();
    const reply = page.getByTestId('chat-assistant').last();
    await expect.poll(() => reply.textContent()).toContain('Hello from the fake.');
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    await expect.poll(() => page.getByTestId('chat-model').textContent()).toContain('fake-gpt');
    await noSeriousAxe('debug-chat');
    await shot(page, 'debug-chat');
    await page.getByTestId('chat-execution-link').click();
    await page.getByRole('heading', { name: 'Execution' }).waitFor();
    await page.getByTestId('chat-reset').waitFor({ state: 'detached' });
  });
});

describe('monitoring', () => {
  it('a signed http_bot message appears in the live panel without a reload, then in the table and its detail', async () => {
    await firstRender(page, '/monitoring', 'Monitoring', '/monitoring');
    await expect.poll(() => page.getByTestId('live-state').textContent()).toBe('Live');
    const body = JSON.stringify({ session_id: 'alice', sender: { id: 'alice', name: 'Alice' }, message: [{ type: 'Plain', text: 'signed hello' }] });
    const ts = String(Math.floor(Date.now() / 1000));
    const signature = `sha256=${createHmac('sha256', SECRET).update(`${ts}.${body}`).digest('hex')}`;
    const sent = await fetch(`${baseUrl}/bots/${botUuid}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-lb-timestamp': ts, 'x-lb-signature': signature }, body });
    expect(sent.status).toBe(202);
    // The feed's rows carry no input preview: the bot names the new execution.
    await page.getByTestId('live-row').filter({ hasText: 'Helpdesk' }).waitFor();
    await noSeriousAxe('monitoring');
    await shot(page, 'monitoring-live');
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.getByTestId('execution-row').filter({ hasText: 'signed hello' });
    await row.waitFor();
    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Execution' }).waitFor();
    await page.getByRole('tab', { name: 'LLM calls' }).click();
    const call0 = page.getByTestId('llm-call').first();
    await call0.waitFor();
    expect(await call0.getByTestId('llm-input').textContent()).toBe('7');
    expect(await call0.getByTestId('llm-output').textContent()).toBe('3');
    expect(await call0.getByTestId('llm-total').textContent()).toBe('10');
    expect(await call0.getByTestId('llm-duration').textContent()).toMatch(/\d+(\.\d+)? m?s/);
    await page.getByRole('tab', { name: 'Tool calls' }).click();
    await page.getByText('No tool call in this execution.').waitFor();
    await noSeriousAxe('execution-detail');
    await shot(page, 'execution-detail');
  });

  it('resets the session’s context after a confirmation, and exports a CSV with the execution', async () => {
    await page.goto('/monitoring');
    await page.getByRole('tab', { name: 'Sessions' }).click();
    await page.getByRole('button', { name: 'Reset the context of person_alice' }).click();
    await page.getByTestId('confirm-reset').click();
    await page.getByText('Context of person_alice reset').waitFor();
    await shot(page, 'monitoring-sessions');

    const download = page.waitForEvent('download');
    await page.getByTestId('export').click();
    await page.getByTestId('export-messages').click();
    const file = await download;
    const path = await file.path();
    const csv = readFileSync(path, 'utf8');
    expect(csv.split('\n')[0]).toContain(',');
    expect(csv).toContain('signed hello');
  });
});

describe('in Chinese, dark, at 390 px', () => {
  it('bots, a bot, pipelines, a pipeline and monitoring: translated, no serious axe finding, nothing wider than the screen', async () => {
    const narrow = await open(browser, baseUrl, { colorScheme: 'dark', width: 390 });
    // Logged in and in Chinese from the first load (the session and the language live in localStorage).
    await narrow.page.addInitScript((t) => {
      localStorage.setItem('langbot_token', t);
      localStorage.setItem('langbot_language', 'zh_Hans');
    }, token);
    const p = narrow.page;
    const pipeline = (await call(baseUrl, 'GET', `/api/v1/pipelines/${pipelineUuid}`, { token })).data.pipeline as { name: string };
    const bot = (await call(baseUrl, 'GET', `/api/v1/platform/bots/${botUuid}`, { token })).data.bot as { name: string };
    for (const [path, heading, name] of [
      ['/platform/bots', '机器人', 'bots'],
      [`/platform/bots/${botUuid}`, bot.name, 'bot'],
      ['/pipelines', '流水线', 'pipelines'],
      [`/pipelines/${pipelineUuid}`, pipeline.name, 'pipeline'],
      [`/pipelines/${pipelineUuid}?tab=ai`, pipeline.name, 'pipeline-ai'],
      ['/monitoring', '监控', 'monitoring'],
    ] as const) {
      await p.goto(path);
      await p.getByRole('heading', { name: heading }).first().waitFor();
      expect(await p.evaluate(() => document.documentElement.lang)).toBe('zh-Hans');
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${path} is ${overflow}px wider than the screen`).toBeLessThanOrEqual(0);
      expect(await axe(p, `${path} zh`, 'dark-390')).toEqual([]);
      await shot(p, `${name}-zh-dark-390`);
    }
    expect(narrow.problems).toEqual([]);
    await narrow.context.close();
  });
});

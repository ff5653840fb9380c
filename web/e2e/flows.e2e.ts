// The UI end to end, in order, on one fresh server: first run → login → provider and models →
// test → star → language → cascade delete; API keys and MCP; Workspace invitations; session
// expiry; password change; logout and the back button; then each page in both themes, narrow,
// and in Chinese. Every step also checks the page logged no error and axe finds nothing serious.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';

import { call, login } from './api';
import { axe, firstRender, launch, open, shot, timings, type Watched } from './browser';

const baseUrl = inject('baseUrl');
const upstream = inject('upstream');
const OWNER = 'owner@example.com';
const PASSWORD = 'first-password-1';
const NEW_PASSWORD = 'second-password-2';

let browser: Browser;
let main: Watched;
let page: Page;

const token = () => page.evaluate(() => localStorage.getItem('langbot_token') ?? '');

beforeAll(async () => {
  browser = await launch(`${baseUrl}/healthz`);
  main = await open(browser, baseUrl);
  page = main.page;
});
afterAll(async () => {
  await browser.close();
});
afterEach(async (context) => {
  // A failed step leaves a picture of where the main page was.
  if (context.task.result?.state === 'fail') await shot(page, `failed-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  expect(main.problems).toEqual([]);
});

async function noSeriousAxe(name: string, on: Page = page, scheme = 'light') {
  expect(await axe(on, name, scheme)).toEqual([]);
}

describe('first run', () => {
  it('leads a new user from / to first run, creates the owner and logs in', async () => {
    await firstRender(page, '/', 'Welcome to LangBot', 'setup (/ on a new instance)');
    expect(new URL(page.url()).pathname).toBe('/setup');
    await noSeriousAxe('setup');
    await shot(page, 'setup-en-light');
    await page.getByLabel('Email').fill(OWNER);
    await page.getByLabel(/^Password/).fill('short');
    await page.getByLabel('Confirm password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByText('At least 8 characters').count()).toBeGreaterThan(1);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/models');
    expect((await call(baseUrl, 'GET', '/api/v1/system/info')).data.initialized).toBe(true);
    await page.getByText('No model providers yet').waitFor();
    await noSeriousAxe('models-empty');
  });
});

describe('providers and models', () => {
  it('adds a provider from the requester catalog and its models', async () => {
    await page.getByRole('button', { name: 'Add provider' }).click();
    await page.getByTestId('requester-openai-chat-completions').click();
    await page.getByTestId('preset-deepseek').click();
    expect(await page.getByLabel('Base URL').inputValue()).toBe('https://api.deepseek.com/v1');
    expect(await page.getByLabel('Name').inputValue()).toBe('DeepSeek');
    await noSeriousAxe('provider-form');
    await shot(page, 'provider-form');
    await page.getByLabel('Name').fill('Fake AI');
    await page.getByLabel('Base URL').fill(upstream);
    await page.getByLabel('API key 1').fill('sk-test');
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    const card = page.getByTestId('provider-Fake AI');
    await card.waitFor();

    for (const name of ['fake-gpt', 'error-model']) {
      await card.getByRole('button', { name: 'Add model' }).click();
      await page.getByLabel(/^Model\b/).fill(name);
      await page.getByLabel('Tool calls').check();
      await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
      await card.getByTestId(`model-${name}`).waitFor();
    }
    await card.getByRole('tab', { name: /Embedding/ }).click();
    await card.getByRole('button', { name: 'Add model' }).click();
    await page.getByLabel(/^Model\b/).fill('fake-embed');
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    await card.getByTestId('model-fake-embed').waitFor();
    await card.getByRole('tab', { name: /LLM/ }).click();
    await card.getByTestId('model-fake-gpt').waitFor();
  });

  it('tests a model: latency on success, the provider’s error on failure', async () => {
    const card = page.getByTestId('provider-Fake AI');
    await card.getByRole('button', { name: 'Test fake-gpt' }).click();
    const ok = card.getByTestId('model-fake-gpt').getByTestId('test-result');
    await expect.poll(() => ok.textContent()).toMatch(/^OK · \d+ ms$/);
    await card.getByRole('button', { name: 'Test error-model' }).click();
    const failed = card.getByTestId('model-error-model').getByTestId('test-result');
    await expect.poll(() => failed.textContent()).toMatch(/HTTP 500/);
    // The provider's own words, and the status once.
    const text = (await failed.textContent()) ?? '';
    expect(text).toContain('The server had an error');
    expect(text.split('HTTP 500').length - 1).toBe(1);
  });

  it('stars the default model', async () => {
    const card = page.getByTestId('provider-Fake AI');
    await card.getByRole('button', { name: 'Make fake-gpt the default model' }).click();
    await expect.poll(() => page.getByTestId('starred-summary').textContent()).toContain('fake-gpt');
    await card.getByTestId('model-fake-gpt').getByTestId('starred-badge').waitFor();
    const starred = await call(baseUrl, 'GET', '/api/v1/provider/models/llm/_/starred', { token: await token() });
    expect(starred.data.uuid).toBeTruthy();
    await noSeriousAxe('models');
    await shot(page, 'models-en-light');
  });

  it('switches the language: the UI and the server’s messages follow', async () => {
    await page.getByTestId('language-menu').click();
    await page.getByRole('menuitem', { name: '简体中文' }).click();
    await page.getByRole('heading', { name: '模型' }).waitFor();
    expect((await call(baseUrl, 'GET', '/api/v1/workspaces/current/language', { token: await token() })).data.language).toBe('zh_Hans');
    const card = page.getByTestId('provider-Fake AI');
    await card.getByRole('button', { name: '测试 error-model' }).click();
    const failed = card.getByTestId('model-error-model').getByTestId('test-result');
    await expect.poll(() => failed.textContent()).toContain('模型测试失败');
    expect(await failed.textContent()).toContain('The server had an error');
    await shot(page, 'models-zh-light');
    await page.getByTestId('language-menu').click();
    await page.getByRole('menuitem', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    await card.getByRole('button', { name: 'Test error-model' }).click();
    await expect.poll(() => failed.textContent()).not.toContain('模型测试失败');
  });

  it('deletes the provider with its models after a confirmation that names them and the pipelines using them', async () => {
    const t = await token();
    const llm = await call(baseUrl, 'GET', '/api/v1/provider/models/llm', { token: t });
    const gpt = (llm.data.models as { uuid: string; name: string }[]).find((m) => m.name === 'fake-gpt');
    const pipeline = await call(baseUrl, 'POST', '/api/v1/pipelines', {
      token: t,
      body: { name: 'Support bot', config: { ai: { runner_config: { 'local-agent': { model: { primary: gpt?.uuid ?? '' } } } } } },
    });
    expect(pipeline.status).toBe(200);

    await page.getByRole('button', { name: 'Delete Fake AI' }).click();
    const preview = page.getByTestId('delete-preview');
    await preview.waitFor();
    const text = (await preview.textContent()) ?? '';
    for (const expected of ['fake-gpt', 'error-model', 'fake-embed', 'Support bot', '3 of its models', 'default model']) expect(text).toContain(expected);
    await noSeriousAxe('delete-provider-dialog');
    await shot(page, 'delete-provider-dialog');
    // Nothing is gone before the confirmation.
    expect((await call(baseUrl, 'GET', '/api/v1/provider/providers', { token: t })).data.total).toBe(1);
    await page.getByTestId('confirm-delete').click();
    await page.getByText('No model providers yet').waitFor();

    expect((await call(baseUrl, 'GET', '/api/v1/provider/providers', { token: t })).data.total).toBe(0);
    for (const kind of ['llm', 'embedding', 'rerank']) {
      expect((await call(baseUrl, 'GET', `/api/v1/provider/models/${kind}`, { token: t })).data.total).toBe(0);
    }
    expect((await call(baseUrl, 'GET', '/api/v1/provider/models/llm/_/starred', { token: t })).data.uuid).toBeNull();
  });
});

describe('API keys and MCP', () => {
  it('creates a key, copies its secret once, and the key works on the API and MCP', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Create API key' }).first().click();
    await page.getByLabel('Name').fill('ci-key');
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor();
    await noSeriousAxe('api-key-created');
    await page.getByTestId('new-key-copy').click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toMatch(/^lbk_[A-Za-z0-9_-]{43}$/);
    expect(await shown.textContent()).toBe(copied);
    expect(await page.getByTestId('new-key-mcp').textContent()).toContain(`${baseUrl}/mcp`);
    await page.getByRole('button', { name: 'I have copied it' }).click();

    const context = await call(baseUrl, 'GET', '/api/v1/system/context', { apiKey: copied });
    expect(context.status).toBe(200);
    expect(context.data.principal_kind).toBe('api_key');
    const mcp = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': copied },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(200);

    await page.reload();
    const row = page.getByTestId('apikey-ci-key');
    await expect.poll(() => row.getByTestId('apikey-last-used').textContent()).not.toBe('Never used');
    expect(await page.getByTestId('mcp-url').textContent()).toBe(`${baseUrl}/mcp`);
    await noSeriousAxe('api-keys');
    await shot(page, 'api-keys-en-light');

    await row.getByRole('button', { name: 'Revoke ci-key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => row.getByTestId('apikey-state').textContent()).toBe('Revoked');
    expect((await call(baseUrl, 'GET', '/api/v1/system/context', { apiKey: copied })).status).toBe(401);
  });
});

describe('Workspace', () => {
  it('invites a member who accepts with a new account, logged out', async () => {
    await page.getByRole('link', { name: 'Workspace' }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await page.getByLabel('Email').fill('dev@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByTestId('invitation-link').textContent()) ?? '';
    expect(link).toContain('/invitations/accept#token=lbi_');
    await noSeriousAxe('workspace');
    await shot(page, 'workspace-en-light');

    const guest = await open(browser, baseUrl);
    await guest.page.goto(link);
    await guest.page.getByText('dev@example.com').first().waitFor();
    await noSeriousAxe('invitation-accept', guest.page);
    await shot(guest.page, 'invitation-accept');
    await guest.page.getByLabel(/^Password/).fill('dev-password-1');
    await guest.page.getByLabel('Confirm password').fill('dev-password-1');
    await guest.page.getByRole('button', { name: 'Create account and join' }).click();
    await guest.page.getByRole('heading', { name: 'Models' }).waitFor();
    expect(guest.problems).toEqual([]);
    await guest.context.close();

    await page.reload();
    await page.getByRole('region', { name: 'Members' }).getByRole('cell', { name: 'dev@example.com', exact: true }).waitFor();
  });

  it('changes a member’s role and revokes an invitation', async () => {
    const t = await token();
    const ws = (await call(baseUrl, 'GET', '/api/v1/workspaces/current', { token: t })).data.workspace as { uuid: string };
    const members = async () => (await call(baseUrl, 'GET', `/api/v1/workspaces/${ws.uuid}/members`, { token: t })).data.members as { email: string; role: string }[];

    await page.getByRole('combobox', { name: 'Role of dev@example.com' }).click();
    await page.getByRole('option', { name: 'Viewer' }).click();
    await expect.poll(async () => (await members()).find((m) => m.email === 'dev@example.com')?.role).toBe('viewer');

    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByTestId('invitation-ops@example.com').waitFor();
    const link = (await page.getByTestId('invitation-link').textContent()) ?? '';
    const invitationToken = new URLSearchParams(new URL(link).hash.slice(1)).get('token') ?? '';
    expect((await call(baseUrl, 'POST', '/api/v1/invitations/inspect', { body: { token: invitationToken } })).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke the invitation for ops@example.com' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    // Only pending invitations are listed: the revoked one leaves the list, and its link is dead.
    await page.getByTestId('invitation-ops@example.com').waitFor({ state: 'detached' });
    expect(await page.getByTestId('invitation-link').count()).toBe(0);
    const pending = (await call(baseUrl, 'GET', `/api/v1/workspaces/${ws.uuid}/invitations`, { token: t })).data.invitations as { normalized_email: string }[];
    expect(pending.map((i) => i.normalized_email)).not.toContain('ops@example.com');
    expect((await call(baseUrl, 'POST', '/api/v1/invitations/inspect', { body: { token: invitationToken } })).status).toBeGreaterThanOrEqual(400);
  });
});

describe('Workspace membership', () => {
  it('removes a member, who is then told so; a new invitation, accepted while logged in, brings them back', async () => {
    const t = await token();
    const ws = (await call(baseUrl, 'GET', '/api/v1/workspaces/current', { token: t })).data.workspace as { uuid: string };
    const memberEmails = async () => ((await call(baseUrl, 'GET', `/api/v1/workspaces/${ws.uuid}/members`, { token: t })).data.members as { email: string }[]).map((m) => m.email);

    await page.getByRole('button', { name: 'Remove dev@example.com' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(memberEmails).not.toContain('dev@example.com');

    const dev = await open(browser, baseUrl);
    await dev.page.goto('/login');
    await dev.page.getByLabel('Email').fill('dev@example.com');
    await dev.page.getByLabel(/^Password/).fill('dev-password-1');
    await dev.page.getByRole('button', { name: 'Log in' }).click();
    await dev.page.getByTestId('no-workspace').waitFor();
    await noSeriousAxe('no-workspace', dev.page);

    await page.getByLabel('Email').fill('dev@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByText('Invitation for dev@example.com created').waitFor();
    const link = (await page.getByTestId('invitation-link').textContent()) ?? '';
    await dev.page.goto(link);
    await dev.page.getByRole('button', { name: 'Accept and join' }).click();
    await dev.page.getByRole('heading', { name: 'Models' }).waitFor();
    expect(await memberEmails()).toContain('dev@example.com');
    expect(dev.problems).toEqual([]);
    await dev.context.close();
  });
});

describe('sessions', () => {
  it('returns to login when the session ends, then back to the page', async () => {
    const relogin = async (expectedNext: string) => {
      await page.getByTestId('session-expired').waitFor();
      const url = new URL(page.url());
      expect(url.pathname).toBe('/login');
      expect(url.searchParams.get('next')).toBe(expectedNext);
      await page.getByLabel('Email').fill(OWNER);
      await page.getByLabel(/^Password/).fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(expectedNext);
    };
    // The session ends on the server while the page is open; the next call finds out.
    await page.goto('/workspace');
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    expect((await call(baseUrl, 'POST', '/api/v1/user/logout', { token: await token() })).status).toBe(200);
    await page.getByLabel('Email').fill('late@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    await noSeriousAxe('login-expired');
    await relogin('/workspace');
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    // A deep link opened with a dead session.
    expect((await call(baseUrl, 'POST', '/api/v1/user/logout', { token: await token() })).status).toBe(200);
    await page.goto('/api-keys');
    await relogin('/api-keys');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  it('changes the password, says other sessions were signed out, and they are', async () => {
    const other = await login(baseUrl, OWNER, PASSWORD);
    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Account' }).click();
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByLabel('Confirm password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByTestId('password-changed').textContent()).toContain('other sessions were signed out');
    await noSeriousAxe('account');
    expect((await call(baseUrl, 'GET', '/api/v1/user/info', { token: other })).status).toBe(401);
    expect((await call(baseUrl, 'GET', '/api/v1/user/info', { token: await token() })).status).toBe(200);
  });

  it('logs out; the back button then shows login', async () => {
    await page.goto('/models');
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await token()).toBe('');
    await noSeriousAxe('login');
    await shot(page, 'login-en-light');
  });
});

describe('keyboard', () => {
  it('logs in, moves between pages and opens and closes a dialog without a mouse', async () => {
    const view = await open(browser, baseUrl);
    const p = view.page;
    await p.goto('/login');
    await p.getByRole('heading', { name: 'Log in' }).waitFor();
    // The email field has the focus on arrival.
    await expect.poll(() => p.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('email');
    await p.keyboard.type(OWNER);
    await p.keyboard.press('Tab');
    await p.keyboard.type(NEW_PASSWORD);
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'Models' }).waitFor();

    const focused = () => p.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText.trim() ?? '');
    async function tabTo(text: string, limit = 40) {
      for (let i = 0; i < limit; i++) {
        await p.keyboard.press('Tab');
        if ((await focused()) === text) return;
      }
      throw new Error(`Tab never reached "${text}"`);
    }
    await tabTo('Skip to content');
    await tabTo('API keys');
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'API keys' }).waitFor();
    await tabTo('Create API key');
    await p.keyboard.press('Enter');
    const dialog = p.getByRole('dialog');
    await dialog.waitFor();
    await p.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(view.problems).toEqual([]);
    await view.context.close();
  });
});

describe('every page, dark and narrow, in both languages', () => {
  for (const [scheme, width] of [['dark', 1280], ['light', 390], ['dark', 390]] as const) {
    it(`${scheme} at ${width}px`, async () => {
      const view = await open(browser, baseUrl, { colorScheme: scheme, width });
      const p = view.page;
      await firstRender(p, '/login', 'Log in', `/login ${scheme} ${width}px`);
      await p.getByLabel('Email').fill(OWNER);
      await p.getByLabel(/^Password/).fill(NEW_PASSWORD);
      await p.getByRole('button', { name: 'Log in' }).click();
      await p.getByRole('heading', { name: 'Models' }).waitFor();
      for (const [path, heading] of [['/models', 'Models'], ['/api-keys', 'API keys'], ['/workspace', 'Workspace'], ['/account', 'Account']] as const) {
        await firstRender(p, path, heading, `${path} ${scheme} ${width}px`);
        expect(await axe(p, path, `${scheme}-${width}`)).toEqual([]);
        await shot(p, `${path.slice(1)}-en-${scheme}-${width}`);
      }
      await p.goto('/workspace');
      await p.getByTestId('language-menu').click();
      await p.getByRole('menuitem', { name: '简体中文' }).click();
      await p.getByRole('heading', { name: '工作区', exact: true }).first().waitFor();
      await shot(p, `workspace-zh-${scheme}-${width}`);
      await p.goto('/api-keys');
      await p.getByRole('heading', { name: 'API 密钥', exact: true }).first().waitFor();
      expect(await axe(p, '/api-keys zh', `${scheme}-${width}`)).toEqual([]);
      await shot(p, `api-keys-zh-${scheme}-${width}`);
      await p.goto('/models');
      await p.getByRole('heading', { name: '模型', exact: true }).first().waitFor();
      expect(await axe(p, '/models zh', `${scheme}-${width}`)).toEqual([]);
      await shot(p, `models-zh-${scheme}-${width}`);
      await p.getByTestId('language-menu').click();
      await p.getByRole('menuitem', { name: 'English' }).click();
      await p.getByRole('heading', { name: 'Models', exact: true }).first().waitFor();
      expect(view.problems).toEqual([]);
      await view.context.close();
    });
  }
});

describe('first meaningful render', () => {
  // Every measured visit above is a full page load (page.goto): / and each /login in a fresh
  // browser context (nothing cached), the pages behind login after it in the same context.
  // The bar: the median under 1 s, and no page over 2 s.
  it('is under 1 s (median over every cold page load), none over 2 s', () => {
    const all = Object.values(timings).sort((a, b) => a - b);
    expect(all.length).toBeGreaterThanOrEqual(13);
    const median = all[Math.floor(all.length / 2)] ?? Infinity;
    console.log(`first meaningful render, ms: median ${median}, max ${all.at(-1)}; ${JSON.stringify(timings)}`);
    expect(median).toBeLessThan(1000);
    expect(all.at(-1)).toBeLessThan(2000);
  });
});

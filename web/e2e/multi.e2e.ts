// Several Workspaces (a server with LANGBOT_MULTI_WORKSPACE): the switcher creates one, moves
// to it and back, and each Workspace shows only its own providers.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { call, login } from './api';
import { axe, launch, open, shot, type Watched } from './browser';

const baseUrl = inject('multiUrl');
const upstream = inject('upstream');
const OWNER = 'multi@example.com';
const PASSWORD = 'multi-password-1';

let browser: Browser;
let view: Watched;

beforeAll(async () => {
  browser = await launch();
  view = await open(browser, baseUrl);
  expect((await call(baseUrl, 'POST', '/api/v1/user/init', { body: { user: OWNER, password: PASSWORD } })).status).toBe(200);
  const token = await login(baseUrl, OWNER, PASSWORD);
  const created = await call(baseUrl, 'POST', '/api/v1/provider/providers', {
    token,
    body: { name: 'First only', requester: 'openai-chat-completions', base_url: upstream, api_keys: ['sk-test'], config: {} },
  });
  expect(created.status).toBe(200);
});
afterAll(async () => {
  await browser.close();
});

describe('Workspace switcher', () => {
  it('creates a Workspace, switches to it and back; each shows its own providers', async () => {
    const { page } = view;
    await page.goto('/login');
    await page.getByLabel('Email').fill(OWNER);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByTestId('provider-First only').waitFor();
    const switcher = page.getByTestId('workspace-switcher');
    const firstName = (await switcher.textContent()) ?? '';

    await switcher.click();
    await page.getByRole('menuitem', { name: 'New Workspace' }).click();
    await page.getByLabel('Workspace name').fill('Second team');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => switcher.textContent()).toBe('Second team');
    await page.getByText('No model providers yet').waitFor();
    expect(await page.getByTestId('provider-First only').count()).toBe(0);
    const token = await page.evaluate(() => localStorage.getItem('langbot_token') ?? '');
    const list = await call(baseUrl, 'GET', '/api/v1/workspaces', { token });
    expect((list.data.workspaces as { name: string }[]).map((w) => w.name).sort()).toEqual([firstName, 'Second team'].sort());

    await switcher.click();
    await page.getByRole('menuitem', { name: firstName }).waitFor();
    expect(await axe(page, 'workspace-switcher-menu')).toEqual([]);
    await shot(page, 'workspace-switcher-menu');
    await page.getByRole('menuitem', { name: firstName }).click();
    await expect.poll(() => switcher.textContent()).toBe(firstName);
    await page.getByTestId('provider-First only').waitFor();
    // The choice survives a reload.
    await page.reload();
    await page.getByTestId('provider-First only').waitFor();
    expect(view.problems).toEqual([]);
  });
});

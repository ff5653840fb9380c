// MCP servers, end to end on a server of its own (stdio left disabled, as by default) and a real
// MCP server (tests/fixtures/mcp_server.py, the official Python SDK, over streamable HTTP):
// add it through the form (a draft test first) → connected with its 6 tools → the detail lists
// `echo` and the resource → the row's test says connected → the stored header secret comes back
// masked → the offered tools → stdio refused with the server's message at the field → delete
// through the confirmation → the list is empty. Every step: no console errors, axe clean.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { call } from './api';
import { axe, firstRender, launch, open, shot, type Watched } from './browser';
import { freePort, type Server, startServer } from './global-setup';

const OWNER = 'mcp-owner@example.com';
const PASSWORD = 'mcp-password-1';
const FIXTURE_TOOLS = ['echo', 'sleep', 'fail', 'large', 'whoami', 'env'];
/** The Python with mcp==1.30.0 (scripts/lib/mcp_venv.sh's ensure_mcp_venv). */
const PYTHON = process.env.TEST_MCP_PYTHON || process.env.MCP_PYTHON || '/var/cache/langbot-mcp-venv/bin/python';
const SCRIPT = resolve('..', 'tests/fixtures/mcp_server.py');

let browser: Browser;
let view: Watched;
let page: Page;
let server: Server;
let mcp: ChildProcess;
let mcpUrl = '';
let mcpLog = '';
let baseUrl = '';

async function waitListening(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the MCP fixture exited with ${child.exitCode}: ${mcpLog}`);
    const up = await new Promise<boolean>((ok) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        ok(true);
      });
      socket.once('error', () => ok(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the MCP fixture did not listen in 30 s: ${mcpLog}`);
}

beforeAll(async () => {
  if (!existsSync(PYTHON)) throw new Error(`no Python with the MCP SDK at ${PYTHON}: source scripts/lib/mcp_venv.sh and run ensure_mcp_venv (or set TEST_MCP_PYTHON)`);
  const port = await freePort();
  mcp = spawn(PYTHON, [SCRIPT, 'streamable-http', String(port)], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  mcp.stderr?.on('data', (chunk: Buffer) => {
    mcpLog = (mcpLog + chunk.toString()).slice(-4000);
  });
  mcpUrl = `http://127.0.0.1:${port}/mcp`;
  const bin = process.env.LANGBOT_BIN ?? resolve(process.env.CARGO_TARGET_DIR ?? '/var/cache/langbot-target', 'release/langbot');
  [server] = await Promise.all([startServer(bin, { LANGBOT_MCP_STDIO_ENABLED: 'false' }), waitListening(port, mcp)]);
  baseUrl = server.url;
  expect((await call(baseUrl, 'POST', '/api/v1/user/init', { body: { user: OWNER, password: PASSWORD } })).status).toBe(200);
  browser = await launch(`${baseUrl}/healthz`);
  view = await open(browser, baseUrl);
  page = view.page;
});

afterAll(async () => {
  await browser.close();
  await server.stop();
  if (mcp.pid && mcp.exitCode === null) process.kill(-mcp.pid, 'SIGTERM');
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') await shot(page, `failed-mcp-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  expect(view.problems).toEqual([]);
});

async function noSeriousAxe(name: string) {
  expect(await axe(page, name)).toEqual([]);
}

const token = () => page.evaluate(() => localStorage.getItem('langbot_token') ?? '');
const row = () => page.getByTestId('mcp-server-fixture');

describe('MCP servers page', () => {
  it('is reached from the navigation and starts empty, saying stdio is off', async () => {
    await page.goto('/login');
    await page.getByLabel('Email').fill(OWNER);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    await page.getByRole('link', { name: 'MCP servers' }).click();
    await page.getByRole('heading', { name: 'MCP servers' }).waitFor();
    // The pointer leaves the link it clicked (axe judges the page, not a hover state).
    await page.mouse.move(900, 700);
    await page.getByTestId('mcp-empty').waitFor();
    expect(await page.getByTestId('stdio-disabled').textContent()).toContain('LANGBOT_MCP_STDIO_ENABLED');
    await noSeriousAxe('mcp-empty');
    await shot(page, 'mcp-empty');
    // A cold load of the page renders it (its own chunk).
    await firstRender(page, '/mcp-servers', 'MCP servers', 'mcp servers (cold)');
    await page.getByTestId('mcp-empty').waitFor();
  });

  it('tests the draft, then adds the server through the form; it connects with 6 tools', async () => {
    // Keyboard: the add button is reachable and opens the form.
    await page.getByRole('button', { name: 'Add MCP server' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Name/).fill('fixture');
    expect(await dialog.getByLabel(/^Transport/).inputValue()).toBe('remote');
    await dialog.getByLabel(/^URL/).fill(mcpUrl);
    await dialog.getByRole('button', { name: 'Add header' }).click();
    await dialog.getByLabel('Header 1 name', { exact: true }).fill('Authorization');
    await dialog.getByLabel('Header 1 value', { exact: true }).fill('Bearer e2e-secret');
    await dialog.getByRole('button', { name: 'Test', exact: true }).click();
    const draft = dialog.getByTestId('test-result');
    await expect.poll(() => draft.textContent()).toContain('6 tools found');
    for (const tool of FIXTURE_TOOLS) expect(await draft.textContent()).toContain(tool);
    await noSeriousAxe('mcp-form');
    await shot(page, 'mcp-form-tested');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });

    await row().waitFor();
    // Connecting → connected, by polling.
    await expect.poll(() => row().getByTestId('mcp-status').textContent(), { timeout: 20_000 }).toBe('Connected');
    expect(await row().getByTestId('mcp-tool-count').textContent()).toBe('6');
    const listed = await call(baseUrl, 'GET', '/api/v1/mcp/servers', { token: await token() });
    const saved = (listed.data.servers as { name: string; mode: string; extra_args: { url: string; headers: Record<string, string> } }[])[0];
    expect(saved?.mode).toBe('remote');
    expect(saved?.extra_args.url).toBe(mcpUrl);
    expect(saved?.extra_args.headers).toEqual({ Authorization: '***' });
    await noSeriousAxe('mcp-list');
    await shot(page, 'mcp-list-connected');
  });

  it('shows the tools (schema folded) and the resources in the detail', async () => {
    await row().getByRole('button', { name: 'Details of fixture' }).click();
    const dialog = page.getByRole('dialog');
    const echo = dialog.getByTestId('tool-echo');
    await echo.waitFor();
    expect(await echo.textContent()).toContain('Returns the text it was given.');
    await echo.getByRole('button').click();
    await expect.poll(() => echo.getByText('"text"').first().isVisible()).toBe(true);
    await noSeriousAxe('mcp-detail-tools');
    await shot(page, 'mcp-detail-tools');
    await dialog.getByRole('tab', { name: 'Resources' }).click();
    await expect.poll(() => dialog.getByTestId('server-resources').textContent()).toContain('test://hello');
    await noSeriousAxe('mcp-detail-resources');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('tests the saved server: connected with its tools', async () => {
    await row().getByRole('button', { name: 'Test fixture' }).click();
    const result = row().getByTestId('test-result');
    await expect.poll(() => result.textContent(), { timeout: 20_000 }).toContain('Connected');
    expect(await result.textContent()).toContain('6 tools found');
  });

  it('edits with the stored secret masked, and lists the offered tools', async () => {
    await row().getByRole('button', { name: 'Edit fixture' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByLabel('Header 1 value', { exact: true }).inputValue()).toBe('***');
    expect(await dialog.getByLabel('Header 1 name', { exact: true }).getAttribute('readonly')).not.toBeNull();
    await dialog.getByRole('button', { name: 'Replace the stored value of Authorization' }).waitFor();
    await noSeriousAxe('mcp-form-edit');
    await shot(page, 'mcp-form-edit');
    // Saving with the mask keeps the secret (the session reconnects and answers again).
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => row().getByTestId('mcp-status').textContent(), { timeout: 20_000 }).toBe('Connected');

    await page.getByRole('tab', { name: 'Tools offered' }).click();
    await page.getByTestId('offered-echo').waitFor();
    expect(await page.getByTestId('offered-tools').locator('tbody tr').count()).toBe(6);
    await noSeriousAxe('mcp-offered-tools');
    await shot(page, 'mcp-offered-tools');
    await page.getByRole('tab', { name: 'Servers' }).click();
    await row().waitFor();
  });

  it('says at the field that stdio is refused, in the server’s words', async () => {
    const refused = await call(baseUrl, 'POST', '/api/v1/mcp/servers', { token: await token(), body: { name: 'probe', mode: 'stdio', extra_args: { command: 'python3' } } });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('mcp_stdio_disabled');
    const message = refused.json.msg ?? '';
    expect(message).not.toBe('');

    await page.getByRole('button', { name: 'Add MCP server' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Name/).fill('local');
    await dialog.getByLabel(/^Transport/).selectOption('stdio');
    await dialog.getByTestId('stdio-off-hint').waitFor();
    await dialog.getByLabel(/^Command/).fill('python3');
    await dialog.getByRole('button', { name: 'Add argument' }).click();
    await dialog.getByLabel('Argument 1', { exact: true }).fill('server.py');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const field = dialog.getByLabel(/^Transport/);
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    await dialog.getByText(message, { exact: true }).waitFor();
    await noSeriousAxe('mcp-form-stdio-refused');
    await shot(page, 'mcp-form-stdio-refused');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    const listed = await call(baseUrl, 'GET', '/api/v1/mcp/servers', { token: await token() });
    expect((listed.data.servers as unknown[]).length).toBe(1);
  });

  it('deletes through a confirmation naming the server; the list is empty', async () => {
    await row().getByRole('button', { name: 'Delete fixture' }).click();
    const confirm = page.getByRole('dialog');
    expect(await confirm.textContent()).toContain('Delete MCP server “fixture”?');
    // axe judges the dialog once it has faded in (mid-fade, colours are blended).
    await expect.poll(() => confirm.evaluate((el) => getComputedStyle(el).opacity)).toBe('1');
    await noSeriousAxe('mcp-delete-confirm');
    await shot(page, 'mcp-delete-confirm');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('mcp-empty').waitFor();
    const listed = await call(baseUrl, 'GET', '/api/v1/mcp/servers', { token: await token() });
    expect(listed.data.servers).toEqual([]);
    await shot(page, 'mcp-empty-after-delete');
  });
});

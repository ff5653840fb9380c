// Plugins, end to end on a server of its own with the plugin host on (LangBot's runtime, `lbp rt`
// from langbot-plugin on PyPI, in TEST_PLUGIN_PYTHON) and the test plugin
// tests/fixtures/plugins/weather built with `lbp build` as its authors would: the page starts
// empty → the package is installed through the file picker → the runtime runs it and its Tools
// are listed → its config form (from the manifest) is saved, the secret stays masked → readme and
// logs → uninstall with its data through the dialog. And a server with plugins off says so.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { call, login } from './api';
import { axe, launch, open, shot, type Watched } from './browser';
import { type Server, startServer } from './global-setup';

const OWNER = 'plugins-owner@example.com';
const PASSWORD = 'plugins-password-1';
const PYTHON = process.env.TEST_PLUGIN_PYTHON || process.env.PLUGIN_PYTHON || '/var/cache/langbot-plugin-venv/bin/python';
const FIXTURE = resolve('..', 'tests/fixtures/plugins/weather');
const BIN = process.env.LANGBOT_BIN ?? resolve(process.env.CARGO_TARGET_DIR ?? '/var/cache/langbot-target', 'release/langbot');
/** A cold runtime: Python starts, then the plugin's own process. */
const RUNNING_WITHIN = 120_000;

let browser: Browser;
let view: Watched;
let page: Page;
let server: Server;
let off: Server;
let baseUrl = '';
let packageFile = '';

/** The fixture plugin as `lbp build` packs it. */
function buildPackage(): string {
  const out = mkdtempSync(join(tmpdir(), 'langbot-e2e-plugin-'));
  execFileSync(PYTHON, ['-m', 'langbot_plugin.cli.__init__', 'build', '-o', out], { cwd: FIXTURE, stdio: 'pipe' });
  const built = readdirSync(out).find((f) => f.endsWith('.lbpkg'));
  if (!built) throw new Error(`lbp build wrote no .lbpkg in ${out}`);
  return join(out, built);
}

beforeAll(async () => {
  if (!existsSync(PYTHON)) throw new Error(`no Python with langbot-plugin at ${PYTHON}: source scripts/lib/plugin_venv.sh and run ensure_plugin_venv (or set TEST_PLUGIN_PYTHON)`);
  packageFile = buildPackage();
  [server, off] = await Promise.all([
    startServer(BIN, { LANGBOT_PLUGIN_ENABLE: 'true', LANGBOT_PLUGIN_RUNTIME_PYTHON: PYTHON, LANGBOT_PLUGIN_INSTALL_DEPENDENCIES: 'false' }),
    startServer(BIN, { LANGBOT_PLUGIN_ENABLE: 'false' }),
  ]);
  baseUrl = server.url;
  for (const url of [server.url, off.url]) {
    expect((await call(url, 'POST', '/api/v1/user/init', { body: { user: OWNER, password: PASSWORD } })).status).toBe(200);
  }
  browser = await launch(`${baseUrl}/healthz`);
  view = await open(browser, baseUrl);
  page = view.page;
});

afterAll(async () => {
  await browser.close();
  await Promise.all([server.stop(), off.stop()]);
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') await shot(page, `failed-plugins-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  expect(view.problems).toEqual([]);
});

const token = () => page.evaluate(() => localStorage.getItem('langbot_token') ?? '');
const row = () => page.getByTestId('plugin-tester/weather');

describe('plugins page', () => {
  it('is reached from the navigation and starts empty, the runtime idle', async () => {
    await page.goto('/login');
    await page.getByLabel('Email').fill(OWNER);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    await page.getByRole('link', { name: 'Plugins' }).click();
    await page.getByRole('heading', { name: 'Plugins' }).waitFor();
    await page.mouse.move(900, 700);
    await page.getByTestId('plugins-empty').waitFor();
    expect(await page.getByTestId('runtime-state').textContent()).toContain('starts when a plugin is enabled');
    expect(await axe(page, '/plugins (empty)')).toEqual([]);
  });

  it('installs a package file; the runtime runs it and its Tools are listed', async () => {
    const chooser = page.waitForEvent('filechooser');
    await page.getByTestId('install-plugin').click();
    await (await chooser).setFiles(packageFile);
    await page.getByText('tester/weather installed').waitFor();
    await row().waitFor();
    expect(await row().getByTestId('plugin-tools').textContent()).toContain('get_weather_alerts');
    await row().getByTestId('plugin-status').filter({ hasText: 'Running' }).waitFor({ timeout: RUNNING_WITHIN });
    await page.getByTestId('runtime-state').filter({ hasText: 'is running' }).waitFor();
    expect(await axe(page, '/plugins')).toEqual([]);
    await shot(page, 'plugins');
  });

  it('saves the config its manifest declares, the secret masked; shows the readme and logs', async () => {
    await page.getByRole('button', { name: 'Details of tester/weather' }).click();
    const dialog = page.getByRole('dialog');
    const greeting = dialog.getByLabel('Greeting');
    expect(await greeting.inputValue()).toBe('hello');
    await greeting.fill('good morning');
    await dialog.getByLabel('API key').fill('weather-secret-1');
    // The file-typed field: uploaded first, then held as {file_key, mimetype}.
    const chooser = page.waitForEvent('filechooser');
    await dialog.getByRole('button', { name: 'Upload a file for Document' }).click();
    await (await chooser).setFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('sunny all week') });
    await dialog.getByTestId('config-file').waitFor();
    await dialog.getByTestId('save-config').click();
    await page.getByText('Plugin config saved').waitFor();
    const saved = await call(baseUrl, 'GET', '/api/v1/plugins/tester/weather/config', { token: await token() });
    const { document, ...rest } = saved.data.config as { document: { file_key: string; mimetype: string } };
    expect(rest).toEqual({ greeting: 'good morning', api_key: '***' });
    expect(document.mimetype).toBe('text/plain');
    expect(document.file_key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await shot(page, 'plugin-config');

    await dialog.getByRole('tab', { name: 'Tools' }).click();
    await dialog.getByText('get_weather_alerts').waitFor();
    await dialog.getByRole('tab', { name: 'Readme' }).click();
    expect(await dialog.getByTestId('plugin-readme').textContent()).toContain('Weather tools for tests');
    await dialog.getByRole('tab', { name: 'Logs' }).click();
    await dialog.getByTestId('plugin-logs').or(dialog.getByText('No log lines')).first().waitFor();
    expect(await axe(page, '/plugins detail')).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('uninstalls it with its data through the dialog', async () => {
    await page.getByRole('button', { name: 'Uninstall tester/weather' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('delete-data').check();
    await dialog.getByTestId('confirm-uninstall').click();
    await page.getByText('tester/weather uninstalled').waitFor();
    await page.getByTestId('plugins-empty').waitFor();
    expect((await call(baseUrl, 'GET', '/api/v1/plugins', { token: await token() })).data.plugins).toEqual([]);
  });
});

describe('a server with plugins off', () => {
  it('says how to turn them on', async () => {
    const other = await open(browser, off.url);
    const t = await login(off.url, OWNER, PASSWORD);
    await other.page.addInitScript((v) => localStorage.setItem('langbot_token', v), t);
    await other.page.goto('/plugins');
    const alert = other.page.getByTestId('plugins-disabled');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('LANGBOT_PLUGIN_ENABLE');
    expect(await axe(other.page, '/plugins (off)')).toEqual([]);
    expect(other.problems).toEqual([]);
    await other.context.close();
  });
});

// Debian's chromium through playwright-core (never a downloaded browser), with what every test
// checks: no console errors, no unhandled rejections, axe-core on each page, screenshots.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const ARTIFACTS = process.env.E2E_ARTIFACTS ?? join(tmpdir(), 'langbot-e2e');
mkdirSync(ARTIFACTS, { recursive: true });

/** Playwright gives each launch a fresh, empty profile directory of its own (it refuses a
 *  `--user-data-dir` argument). `warmUpUrl`: a page to render once before any test. */
export async function launch(warmUpUrl?: string): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  if (warmUpUrl) {
    // Chromium's own first-start costs (fonts, the network service) land on the first page it
    // renders; a throwaway page takes them, so the timed pages measure the UI.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(warmUpUrl);
    await context.close();
  }
  return browser;
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught errors/rejections seen so far. */
  problems: string[];
}

export async function open(browser: Browser, baseURL: string, options: { width?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<Watched> {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: options.width ?? 1280, height: 860 },
    colorScheme: options.colorScheme ?? 'light',
    locale: 'en-US',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  // Everything here is local: a step that waits 15 s has failed (and says where).
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => {
    // A failed request the test provoked on purpose is the browser's own log line, not the app's.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.addInitScript(() => {
    window.addEventListener('unhandledrejection', (event) => {
      console.error(`unhandled rejection: ${String(event.reason)}`);
    });
  });
  return { context, page, problems };
}

export interface AxeResult {
  page: string;
  scheme: string;
  violations: { id: string; impact: string | null | undefined; nodes: number; targets: string[] }[];
}
export const axeResults: AxeResult[] = [];

/** Waits until no CSS transition or animation runs: a menu or dialog fading in has colours
 *  blended with the page below, which axe would report as low contrast. Mantine starts a
 *  transition a frame after mounting, hence the frames before each look. */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    // A spinner or a skeleton's pulse never finishes; only the ones that end are waited for.
    const running = () =>
      document
        .getAnimations()
        .filter((a) => a.playState !== 'finished' && a.playState !== 'idle' && a.effect?.getTiming().iterations !== Infinity);
    // Still means no animation for several frames in a row: Mantine's Collapse starts its
    // transition two frames after it shows the panel, so one quiet frame proves nothing.
    let quiet = 0;
    for (let round = 0; round < 200 && quiet < 6; round++) {
      await frame();
      const now = running();
      if (now.length === 0) {
        quiet += 1;
        continue;
      }
      quiet = 0;
      await Promise.all(now.map((a) => a.finished.catch(() => undefined)));
    }
  });
}

/** Runs axe-core (WCAG 2 A/AA rules) on the page once it is still; answers serious/critical ones. */
export async function axe(page: Page, name: string, scheme = 'light'): Promise<AxeResult['violations']> {
  await settle(page);
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const violations = result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    nodes: v.nodes.length,
    targets: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`),
  }));
  axeResults.push({ page: name, scheme, violations });
  appendJson(join(ARTIFACTS, 'axe.json'), { page: name, scheme, violations });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

export const timings: Record<string, number> = {};
/** Milliseconds from navigation start until a heading named `heading` is in the page (the
 *  first meaningful render), measured in the page itself at the frame that has it. */
export async function firstRender(page: Page, path: string, heading: string, name: string): Promise<number> {
  await page.goto(path, { waitUntil: 'commit' });
  const ms = await page.evaluate(
    (wanted) =>
      new Promise<number>((resolve) => {
        const check = () => {
          const found = [...document.querySelectorAll('h1, h2')].some((h) => h.textContent.trim() === wanted);
          if (found) resolve(performance.now());
          else requestAnimationFrame(check);
        };
        check();
      }),
    heading,
  );
  timings[name] = Math.round(ms);
  appendJson(join(ARTIFACTS, 'timings.json'), { page: name, ms: Math.round(ms) });
  return ms;
}

/** Adds one entry to a JSON array file (every test file of the run adds to the same report;
 *  the global setup starts each run with none). */
function appendJson(file: string, entry: unknown): void {
  const list = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown[]) : [];
  list.push(entry);
  writeFileSync(file, JSON.stringify(list, null, 2));
}

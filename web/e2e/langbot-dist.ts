// LangBot 4.11.2's own web UI, as shipped in its PyPI wheel (`langbot/web/dist/`): downloaded
// with pip at test time into a cache directory (never committed), unpacked once.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const LANGBOT_VERSION = '4.11.2';
const CACHE = process.env.LANGBOT_WHEEL_CACHE ?? '/var/cache/langbot-wheel';

/** The unpacked `dist` directory of LangBot's UI (index.html, assets/). */
export function langbotDist(): string {
  const unpacked = join(CACHE, `ui-${LANGBOT_VERSION}`);
  const dist = join(unpacked, 'langbot', 'web', 'dist');
  if (existsSync(join(dist, 'index.html'))) return dist;
  mkdirSync(CACHE, { recursive: true });
  const python = process.env.TEST_MCP_PYTHON ?? 'python3';
  const wheelName = () => readdirSync(CACHE).find((f) => f.startsWith(`langbot-${LANGBOT_VERSION}-`) && f.endsWith('.whl'));
  if (!wheelName()) {
    execFileSync(python, ['-m', 'pip', 'download', `langbot==${LANGBOT_VERSION}`, '--no-deps', '--disable-pip-version-check', '-d', CACHE], { stdio: 'inherit' });
  }
  const wheel = wheelName();
  if (!wheel) throw new Error(`pip did not download langbot==${LANGBOT_VERSION}`);
  // Only the UI files: a wheel is a zip, and Python's zipfile is at hand wherever pip is.
  const extract = [
    'import sys, zipfile',
    'z = zipfile.ZipFile(sys.argv[1])',
    "z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith('langbot/web/dist/')])",
  ].join('\n');
  execFileSync(python, ['-c', extract, join(CACHE, wheel), unpacked], { stdio: 'inherit' });
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`no langbot/web/dist in ${wheel}`);
  return dist;
}

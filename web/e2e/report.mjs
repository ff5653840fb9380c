// Prints what the browser tests measured: axe-core results per page (every impact level) and
// the first meaningful render of each timed page load. Reads $E2E_ARTIFACTS (the tests' output).
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = process.env.E2E_ARTIFACTS ?? join(tmpdir(), 'langbot-e2e');
const read = (name) => (existsSync(join(dir, name)) ? JSON.parse(readFileSync(join(dir, name), 'utf8')) : []);

const axe = read('axe.json');
console.log(`axe-core (WCAG 2.1 A/AA + best practice), ${axe.length} scans:`);
for (const { page, scheme, violations } of axe) {
  const found = violations.map((v) => `${v.id} (${v.impact}, ${v.nodes})`).join(', ') || 'no violations';
  console.log(`  ${`${page} [${scheme}]`.padEnd(44)} ${found}`);
}
const timings = read('timings.json');
const ms = timings.map((t) => t.ms).sort((a, b) => a - b);
console.log(`\nfirst meaningful render (ms), ${ms.length} page loads, median ${ms[Math.floor(ms.length / 2)]}, max ${ms.at(-1)}:`);
for (const { page, ms: value } of timings) console.log(`  ${String(value).padStart(6)}  ${page}`);
console.log(`\nscreenshots: ${dir}`);

// Gzipped JavaScript per route from dist/.vite/manifest.json: the initial load (the entry and
// its static imports) and, per lazily loaded page, what it adds. Fails over the initial budget.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 250;
const manifest = JSON.parse(readFileSync('dist/.vite/manifest.json', 'utf8'));
const gz = (file) => gzipSync(readFileSync(`dist/${file}`), { level: 9 }).length;

function closure(key, seen = new Set()) {
  const chunk = manifest[key];
  if (!chunk || seen.has(key)) return seen;
  seen.add(key);
  for (const dep of chunk.imports ?? []) closure(dep, seen);
  return seen;
}
const size = (keys) => [...keys].reduce((n, k) => n + (manifest[k].file.endsWith('.js') ? gz(manifest[k].file) : 0), 0);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
const initial = closure(entry);
const initialSize = size(initial);
const rows = [['initial (entry + static imports)', initialSize]];
for (const [key, chunk] of Object.entries(manifest)) {
  if (!chunk.isDynamicEntry) continue;
  const extra = new Set([...closure(key)].filter((k) => !initial.has(k)));
  rows.push([`+ ${key.replace(/^src\//, '')}`, size(extra)]);
}
for (const [name, bytes] of rows) console.log(`${kb(bytes).padStart(10)}  ${name}`);
const css = Object.values(manifest).flatMap((c) => c.css ?? []);
for (const file of new Set(css)) console.log(`${kb(gz(file)).padStart(10)}  css ${file}`);
if (initialSize > BUDGET_KB * 1024) {
  console.error(`initial JavaScript ${kb(initialSize)} is over the ${BUDGET_KB} KB budget`);
  process.exit(1);
}

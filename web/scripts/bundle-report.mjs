// Gzipped JavaScript from dist/.vite/manifest.json: the entry (with its static imports), each
// lazily loaded chunk (what it adds to the entry), and — the budget — the first load of each
// page: everything a cold visit of that page downloads before it renders (the entry, the
// page's chunk and, behind login, the logged-in frame). Fails when a first load is over budget.
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
const short = (key) => key.replace(/^src\//, '');

const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
const initial = closure(entry);
console.log(`${kb(size(initial)).padStart(10)}  entry (${short(entry)} + static imports)`);
for (const [key, chunk] of Object.entries(manifest)) {
  if (!chunk.isDynamicEntry) continue;
  const extra = new Set([...closure(key)].filter((k) => !initial.has(k)));
  console.log(`${kb(size(extra)).padStart(10)}  + ${short(key)}`);
}
const css = Object.values(manifest).flatMap((c) => c.css ?? []);
for (const file of new Set(css)) console.log(`${kb(gz(file)).padStart(10)}  css ${file}`);

// The pages before login render without the logged-in frame.
const PUBLIC = ['src/pages/FirstRunPage.tsx', 'src/pages/LoginPage.tsx', 'src/pages/AcceptInvitationPage.tsx'];
const FRAME = 'src/app/RequireSession.tsx';
const pages = Object.keys(manifest).filter((k) => manifest[k].isDynamicEntry && k.startsWith('src/pages/') && manifest[k].name?.endsWith('Page'));
console.log('\nfirst load per page (gzipped JavaScript, budget %d KB):', BUDGET_KB);
let over = false;
for (const key of pages) {
  const load = closure(entry);
  if (!PUBLIC.includes(key)) closure(FRAME, load);
  closure(key, load);
  const bytes = size(load);
  over ||= bytes > BUDGET_KB * 1024;
  console.log(`${kb(bytes).padStart(10)}  ${short(key)}${bytes > BUDGET_KB * 1024 ? '  OVER BUDGET' : ''}`);
}
if (over) {
  console.error(`a page's first load is over the ${BUDGET_KB} KB budget`);
  process.exit(1);
}

// Fails when src/api/schema.d.ts is not what openapi-typescript makes of ../openapi/openapi.json
// (run `npm run gen` after an API change).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'langbot-client-'));
const fresh = join(dir, 'schema.d.ts');
try {
  execFileSync('npx', ['openapi-typescript', '../openapi/openapi.json', '-o', fresh], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const committed = readFileSync('src/api/schema.d.ts', 'utf8');
  if (readFileSync(fresh, 'utf8') !== committed) {
    console.error('web/src/api/schema.d.ts is stale: run `npm --prefix web run gen` and commit it.');
    process.exit(1);
  }
  console.log('generated client is current');
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Every key in both languages (file by file: the strings are split by page area), and every
// key the code uses in English (the fallback) — in the base or in the area its page loads.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { OPERATORS, STATUS_GROUPS } from '../api/types';
import { WINDOWS } from '../pages/monitoring/queries';

const PLURAL = /_(zero|one|two|few|many|other)$/;

function flatten(node: unknown, prefix = ''): string[] {
  if (typeof node === 'string') return [prefix];
  return Object.entries(node as Record<string, unknown>).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
}

/** Keys without plural suffixes (Chinese has one plural form, English two). */
function base(keys: string[]): Set<string> {
  return new Set(keys.map((k) => k.replace(PLURAL, '')));
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.test.ts') && !name.endsWith('.test.tsx') ? [path] : [];
  });
}

const LOCALES = join(import.meta.dirname, 'locales');
const read = (lng: string) =>
  Object.fromEntries(
    readdirSync(join(LOCALES, lng))
      .filter((f) => f.endsWith('.json'))
      .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(LOCALES, lng, f), 'utf8')) as Record<string, unknown>]),
  );
const enFiles = read('en_US');
const zhFiles = read('zh_Hans');
const en = Object.assign({}, ...Object.values(enFiles)) as Record<string, unknown>;
const zh = Object.assign({}, ...Object.values(zhFiles)) as Record<string, unknown>;
const enKeys = base(flatten(en));
const zhKeys = base(flatten(zh));

/** The page directories and the area each loads (pages/<dir>/*Page.tsx call addArea). */
const AREA_OF_DIR: Record<string, string> = { models: 'models', apikeys: 'apiKeys', mcp: 'mcpServers', workspace: 'workspace', bots: 'bots', pipelines: 'pipelines', monitoring: 'monitoring' };

function literalKeys(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\bt\(\s*'([a-zA-Z0-9_.]+)'/g), ...text.matchAll(/label: '([a-z]+\.[a-zA-Z.]+)'/g)].map((m) => m[1] ?? '');
}

describe('translations', () => {
  it('have the same files and, in each, the same keys in en_US and zh_Hans', () => {
    expect(Object.keys(zhFiles).sort()).toEqual(Object.keys(enFiles).sort());
    expect(Object.keys(enFiles)).toContain('base');
    expect([...enKeys].filter((k) => !zhKeys.has(k))).toEqual([]);
    for (const [name, strings] of Object.entries(enFiles)) {
      const e = base(flatten(strings));
      const z = base(flatten(zhFiles[name]));
      expect({ name, missing: [...e].filter((k) => !z.has(k)) }).toEqual({ name, missing: [] });
      expect({ name, extra: [...z].filter((k) => !e.has(k)) }).toEqual({ name, extra: [] });
    }
  });

  it('put each top-level group in one file only', () => {
    const groups = Object.values(enFiles).flatMap((strings) => Object.keys(strings));
    expect(groups.length).toBe(new Set(groups).size);
  });

  it('give every page area the strings its code asks for (the base and its own file)', () => {
    const pages = join(import.meta.dirname, '..', 'pages');
    for (const [dir, area] of Object.entries(AREA_OF_DIR)) {
      expect(enFiles[area]).toBeDefined();
      const have = base(flatten({ ...enFiles.base, ...enFiles[area] }));
      const files = sources(join(pages, dir));
      const missing = files.flatMap((f) => literalKeys(f).filter((k) => !have.has(k)).map((k) => `${dir}: ${k}`));
      expect(missing).toEqual([]);
      // The page modules add the area's strings.
      for (const f of files.filter((f) => f.endsWith('Page.tsx'))) expect(readFileSync(f, 'utf8')).toContain(`addArea('${area}'`);
    }
    // The entry, the frame, the shared components and the pages before login: the base alone.
    const baseKeys = base(flatten(enFiles.base));
    const outside = [...sources(join(import.meta.dirname, '..', 'app')), ...sources(join(import.meta.dirname, '..', 'components')), ...sources(join(import.meta.dirname, '..', 'forms')), ...readdirSync(pages).filter((f) => f.endsWith('.tsx')).map((f) => join(pages, f))];
    expect(outside.flatMap((f) => literalKeys(f).filter((k) => !baseKeys.has(k)).map((k) => `${f}: ${k}`))).toEqual([]);
  });

  it('have no empty strings', () => {
    const empty = (tree: unknown) => flatten(tree).filter((k) => k.split('.').reduce<unknown>((n, p) => (n as Record<string, unknown>)[p], tree) === '');
    expect(empty(en)).toEqual([]);
    expect(empty(zh)).toEqual([]);
  });

  it('cover every literal key the code asks for', () => {
    const root = join(import.meta.dirname, '..');
    const used = new Set<string>();
    for (const file of sources(root)) {
      for (const k of literalKeys(file)) used.add(k);
    }
    expect(used.size).toBeGreaterThan(100);
    expect([...used].filter((k) => !enKeys.has(k))).toEqual([]);
  });

  it('cover the keys built at run time', () => {
    const families: Record<string, string[]> = {
      roles: ['owner', 'admin', 'developer', 'operator', 'viewer'],
      'models.kind': ['llm', 'embedding', 'rerank'],
      'models.ability': ['func_call', 'vision', 'reasoning'],
      'models.support': ['llm', 'text-embedding', 'rerank'],
      'apiKeys.state': ['active', 'revoked', 'expired'],
      'apiKeys.expiryOption': ['never', '7', '30', '90', '365', 'custom'],
      'invitations.state': ['pending', 'accepted', 'revoked', 'expired'],
      common: ['page_first', 'page_previous', 'page_next', 'page_last'],
      'routes.op': [...OPERATORS],
      'dryRun.verdict': ['selected', 'binding_disabled', 'event_pattern_mismatch', 'processor_incompatible', 'filters_mismatch', 'lower_priority'],
      'monitoring.status': [...STATUS_GROUPS],
      'monitoring.modes': ['all', 'real', 'debug'],
      'monitoring.windows': [...WINDOWS],
      'monitoring.liveState': ['connecting', 'live', 'retrying'],
      'monitoring.exportType': ['messages', 'llm_calls', 'tool_calls', 'errors', 'sessions'],
      'chat.state': ['connecting', 'ready', 'closed'],
      'execution.section': ['conversation', 'llm_calls', 'tool_calls', 'errors', 'related'],
      'execution.empty': ['conversation', 'llm_calls', 'tool_calls', 'errors', 'related'],
      'pipelines.role': ['system', 'user', 'assistant'],
    };
    const missing = Object.entries(families).flatMap(([prefix, names]) => names.map((n) => `${prefix}.${n}`).filter((k) => !enKeys.has(k)));
    expect(missing).toEqual([]);
  });
});

// Every key in both languages, and every key the code uses in English (the fallback).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import en from './locales/en_US.json';
import zh from './locales/zh_Hans.json';

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

const enKeys = base(flatten(en));
const zhKeys = base(flatten(zh));

describe('translations', () => {
  it('have the same keys in en_US and zh_Hans', () => {
    expect([...enKeys].filter((k) => !zhKeys.has(k))).toEqual([]);
    expect([...zhKeys].filter((k) => !enKeys.has(k))).toEqual([]);
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
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bt\(\s*'([a-zA-Z0-9_.]+)'/g)) used.add(m[1] ?? '');
      for (const m of text.matchAll(/label: '([a-z]+\.[a-zA-Z.]+)'/g)) used.add(m[1] ?? '');
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
    };
    const missing = Object.entries(families).flatMap(([prefix, names]) => names.map((n) => `${prefix}.${n}`).filter((k) => !enKeys.has(k)));
    expect(missing).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';

import { fromConfigField, fromItemMeta, initialValues, isVisible, MASK, problems, submittedValues, type FormField } from './fields';

const label = { en_US: 'x', zh_Hans: 'x' };

const fields: FormField[] = [
  { name: 'base_url', label, type: 'url', required: true, default: 'https://api.openai.com/v1', secret: false },
  { name: 'timeout', label, type: 'integer', required: false, default: 120, secret: false, min: 1, max: 600 },
  { name: 'token', label, type: 'string', required: true, default: null, secret: true },
  { name: 'signed', label, type: 'boolean', required: false, default: true, secret: false },
  { name: 'secret', label, type: 'string', required: true, default: null, secret: false, showIf: { field: 'signed', operator: 'eq', value: true } },
  { name: 'webhook_url', label, type: 'webhook-url', required: false, default: null, secret: false },
];

describe('form fields', () => {
  it('start from stored values, else defaults, else empty', () => {
    expect(initialValues(fields, null)).toEqual({ base_url: 'https://api.openai.com/v1', timeout: 120, token: '', signed: true, secret: '', webhook_url: '' });
    const stored = initialValues(fields, { timeout: 30, token: MASK, webhook_url: 'http://h/bots/1' });
    expect(stored.timeout).toBe(30);
    expect(stored.token).toBe(MASK);
    expect(stored.webhook_url).toBe('http://h/bots/1');
  });

  it('show a field only while its show_if matches', () => {
    const secret = fields.find((f) => f.name === 'secret');
    if (!secret) throw new Error('fixture');
    expect(isVisible(secret, { signed: true })).toBe(true);
    expect(isVisible(secret, { signed: false })).toBe(false);
    expect(isVisible({ ...secret, showIf: { field: 'mode', operator: 'neq', value: 'a' } }, { mode: 'b' })).toBe(true);
    expect(isVisible({ ...secret, showIf: { field: 'mode', operator: 'in', value: ['a', 'c'] } }, { mode: 'b' })).toBe(false);
  });

  it('report required fields without defaults and out-of-range numbers, skipping hidden ones', () => {
    const values = { ...initialValues(fields, null), timeout: 0 };
    expect(problems(fields, values)).toEqual({ timeout: { kind: 'range', min: 1, max: 600 }, token: { kind: 'required' }, secret: { kind: 'required' } });
    expect(problems(fields, { ...values, signed: false, timeout: 5, token: 't' })).toEqual({});
    expect(problems(fields, { ...values, timeout: 2.5, token: 't', secret: 's' })).toEqual({ timeout: { kind: 'integer' } });
  });

  it('submit visible writable fields, keep an untouched secret masked, leave blank numbers to the server', () => {
    const values = { base_url: 'https://x/v1', timeout: '', token: MASK, signed: false, secret: 'hidden', webhook_url: 'http://h' };
    expect(submittedValues(fields, values)).toEqual({ base_url: 'https://x/v1', token: MASK, signed: false });
    expect(submittedValues(fields, { ...values, timeout: '45', token: '' })).toEqual({ base_url: 'https://x/v1', timeout: 45, signed: false });
  });

  it('read both server schemas into one shape', () => {
    const fromConfig = fromConfigField({ name: 'timeout', label, type: 'integer', required: false, default: 120 as never, secret: false, minimum: 1, maximum: 600 });
    expect(fromConfig).toMatchObject({ name: 'timeout', type: 'integer', min: 1, max: 600, secret: false });
    const fromMeta = fromItemMeta({ name: 'threshold', label, type: 'float', required: true, default: 0.5 as never, min: 0, max: 1, max_length: null });
    expect(fromMeta).toMatchObject({ name: 'threshold', type: 'float', min: 0, max: 1, secret: false });
    expect(fromMeta.maxLength).toBeUndefined();
  });
});

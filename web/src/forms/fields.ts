// The one description of a server-declared form field, whichever schema declared it
// (requester and adapter `ConfigField`, pipeline `ItemMeta`), and the rules on its values.
import type { ConfigField, ItemMeta } from '../api/types';

/** Shows a field only while another field's value matches (LangBot's `show_if`). */
export interface ShowIf {
  field: string;
  operator: 'eq' | 'neq' | 'in';
  value: unknown;
}

export type Localized = Partial<Record<string, string>> & { en_US: string };

export interface FormField {
  name: string;
  label: Localized;
  description?: Localized;
  /** `string`, `text`, `url`, `integer`, `float`, `boolean`, `select`, `array[string]`,
   *  `webhook-url` (read-only) or a type a caller renders itself. */
  type: string;
  required: boolean;
  default: unknown;
  secret: boolean;
  options?: { name: string; label: Localized }[];
  min?: number;
  max?: number;
  maxLength?: number;
  showIf?: ShowIf;
}

/** The server marks a kept secret with this. */
export const MASK = '***';

/** `show_if` is not in the generated schemas yet; a server that sends it is honoured. */
type WithShowIf = { show_if?: ShowIf | null; description?: Localized | null };

export function fromConfigField(f: ConfigField & WithShowIf): FormField {
  return {
    name: f.name,
    label: f.label,
    ...(f.description ? { description: f.description } : {}),
    type: f.type,
    required: f.required,
    default: f.default,
    secret: f.secret,
    ...(f.options ? { options: f.options } : {}),
    ...(f.minimum != null ? { min: f.minimum } : {}),
    ...(f.maximum != null ? { max: f.maximum } : {}),
    ...(f.show_if ? { showIf: f.show_if } : {}),
  };
}

export function fromItemMeta(f: ItemMeta & WithShowIf): FormField {
  return {
    name: f.name,
    label: f.label,
    ...(f.description ? { description: f.description } : {}),
    type: f.type,
    required: f.required,
    default: f.default,
    secret: false,
    ...(f.options ? { options: f.options } : {}),
    ...(f.min != null ? { min: f.min } : {}),
    ...(f.max != null ? { max: f.max } : {}),
    ...(f.max_length != null ? { maxLength: f.max_length } : {}),
    ...(f.show_if ? { showIf: f.show_if } : {}),
  };
}

export function localize(text: Localized | undefined, language: string): string {
  if (!text) return '';
  return text[language] ?? text.en_US;
}

export function isReadOnly(field: FormField): boolean {
  return field.type === 'webhook-url' || field.type === 'embed-code';
}

function emptyFor(field: FormField): unknown {
  switch (field.type) {
    case 'boolean':
      return false;
    case 'integer':
    case 'float':
      return '';
    case 'array[string]':
      return [];
    default:
      return '';
  }
}

/** Starting values: what is stored (secrets arrive as `***` and stay so), else the default. */
export function initialValues(fields: FormField[], stored?: Record<string, unknown> | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = stored?.[field.name];
    if (value !== undefined && value !== null) out[field.name] = value;
    else if (field.default !== undefined && field.default !== null) out[field.name] = field.default;
    else out[field.name] = emptyFor(field);
  }
  return out;
}

export function isVisible(field: FormField, values: Record<string, unknown>): boolean {
  const rule = field.showIf;
  if (!rule) return true;
  const actual = values[rule.field];
  switch (rule.operator) {
    case 'eq':
      return actual === rule.value;
    case 'neq':
      return actual !== rule.value;
    case 'in':
      return Array.isArray(rule.value) && rule.value.includes(actual);
  }
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

export type Problem = { kind: 'required' } | { kind: 'range'; min?: number; max?: number } | { kind: 'integer' } | { kind: 'tooLong'; max: number };

/** What is wrong with each visible field's value, before the server is asked. */
export function problems(fields: FormField[], values: Record<string, unknown>): Record<string, Problem> {
  const out: Record<string, Problem> = {};
  for (const field of fields) {
    if (!isVisible(field, values) || isReadOnly(field)) continue;
    const value = values[field.name];
    if (isBlank(value)) {
      if (field.required && (field.default === null || field.default === undefined)) out[field.name] = { kind: 'required' };
      continue;
    }
    if (field.type === 'integer' || field.type === 'float') {
      const n = typeof value === 'number' ? value : Number(value);
      if (field.type === 'integer' && !Number.isInteger(n)) out[field.name] = { kind: 'integer' };
      else if ((field.min !== undefined && n < field.min) || (field.max !== undefined && n > field.max)) {
        out[field.name] = { kind: 'range', ...(field.min !== undefined ? { min: field.min } : {}), ...(field.max !== undefined ? { max: field.max } : {}) };
      }
    }
    if (typeof value === 'string' && field.maxLength !== undefined && value.length > field.maxLength) {
      out[field.name] = { kind: 'tooLong', max: field.maxLength };
    }
  }
  return out;
}

/** The values to send: visible, writable fields only; blank numbers left to the server's
 *  default; an untouched secret stays `***` so the server keeps what it has. */
export function submittedValues(fields: FormField[], values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (!isVisible(field, values) || isReadOnly(field)) continue;
    const value = values[field.name];
    if ((field.type === 'integer' || field.type === 'float') && isBlank(value)) continue;
    if (field.type === 'integer' || field.type === 'float') {
      out[field.name] = typeof value === 'number' ? value : Number(value);
      continue;
    }
    if (field.secret && isBlank(value)) continue;
    out[field.name] = value;
  }
  return out;
}

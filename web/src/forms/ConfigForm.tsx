// Renders a server-declared form (FormField[]) inside a Mantine form, under `prefix`.
// Every requester, adapter and pipeline form goes through here.
import {
  ActionIcon,
  CopyButton,
  PasswordInput,
  Select,
  Stack,
  Switch,
  TagsInput,
  Textarea,
  TextInput,
  Tooltip,
} from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { TFunction } from 'i18next';
import { Check, Copy } from 'lucide-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { NumberField } from '../components/NumberField';
import { type FormField, isReadOnly, isVisible, localize, MASK, problems } from './fields';

/** Renders a field type the generic inputs do not cover (e.g. a model selector). */
export type CustomRenderer = (props: { field: FormField; path: string; label: string; description: string }) => ReactNode;

interface Props<V> {
  form: UseFormReturnType<V>;
  fields: FormField[];
  /** Where the field values live in the form, e.g. `config`. */
  prefix: string;
  renderers?: Record<string, CustomRenderer>;
}

function valuesAt(values: unknown, prefix: string): Record<string, unknown> {
  let node: unknown = values;
  for (const part of prefix.split('.').filter(Boolean)) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  return node && typeof node === 'object' ? (node as Record<string, unknown>) : {};
}

export function ConfigForm<V>({ form, fields, prefix, renderers }: Props<V>) {
  const { t, i18n } = useTranslation();
  const values = valuesAt(form.getValues(), prefix);
  return (
    <Stack gap="sm">
      {fields
        .filter((f) => isVisible(f, values))
        .map((field) => {
          const path = prefix ? `${prefix}.${field.name}` : field.name;
          const label = localize(field.label, i18n.language);
          const description = localize(field.description, i18n.language);
          const custom = renderers?.[field.type];
          if (custom) return <div key={field.name}>{custom({ field, path, label, description })}</div>;
          return (
            <FieldInput
              key={form.key(path)}
              field={field}
              label={label}
              description={description}
              inputProps={form.getInputProps(path, { type: field.type === 'boolean' ? 'checkbox' : 'input' })}
              value={values[field.name]}
              t={t}
              language={i18n.language}
            />
          );
        })}
    </Stack>
  );
}

interface FieldInputProps {
  field: FormField;
  label: string;
  description: string;
  inputProps: object;
  value: unknown;
  t: TFunction;
  language: string;
}

function FieldInput({ field, label, description, inputProps, value, t, language }: FieldInputProps) {
  const common = {
    label,
    description: description || undefined,
    required: field.required,
    ...inputProps,
    'data-field': field.name,
  };
  if (isReadOnly(field)) {
    const text = typeof value === 'string' ? value : '';
    return (
      <TextInput
        {...common}
        readOnly
        required={false}
        rightSection={<CopyValue value={text} t={t} />}
        placeholder={t('form.generated')}
      />
    );
  }
  switch (field.type) {
    case 'boolean':
      return <Switch {...common} required={false} />;
    case 'integer':
    case 'float':
      return (
        <NumberField
          {...common}
          allowDecimal={field.type === 'float'}
          min={field.min}
          max={field.max}
          placeholder={typeof field.default === 'number' ? String(field.default) : undefined}
        />
      );
    case 'select':
      return (
        <Select
          {...common}
          allowDeselect={!field.required}
          data={(field.options ?? []).map((o) => ({ value: o.name, label: localize(o.label, language) }))}
        />
      );
    case 'array[string]':
      return <TagsInput {...common} />;
    case 'text':
    case 'prompt-editor':
      return <Textarea {...common} autosize minRows={3} maxLength={field.maxLength} />;
    case 'url':
      return <TextInput {...common} type="url" inputMode="url" spellCheck={false} />;
    default:
      if (field.secret) {
        return (
          <PasswordInput
            {...common}
            autoComplete="off"
            description={value === MASK ? t('form.secretKept') : common.description}
          />
        );
      }
      return <TextInput {...common} maxLength={field.maxLength} />;
  }
}

function CopyValue({ value, t }: { value: string; t: TFunction }) {
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? t('common.copied') : t('common.copy')}>
          <ActionIcon variant="subtle" onClick={copy} aria-label={t('common.copy')} disabled={!value}>
            {copied ? <Check size={14} /> : <Copy size={14} />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

/** Client-side checks as form errors keyed by path (`config.timeout`), in the UI language. */
export function validateFields(fields: FormField[], values: Record<string, unknown>, t: TFunction, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, problem] of Object.entries(problems(fields, values))) {
    const path = prefix ? `${prefix}.${name}` : name;
    switch (problem.kind) {
      case 'required':
        out[path] = t('form.required');
        break;
      case 'integer':
        out[path] = t('form.integer');
        break;
      case 'tooLong':
        out[path] = t('form.tooLong', { max: problem.max });
        break;
      case 'range':
        out[path] = t('form.range', { min: problem.min ?? '−∞', max: problem.max ?? '∞' });
        break;
    }
  }
  return out;
}

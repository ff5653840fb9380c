import { MantineProvider } from '@mantine/core';
import { useForm } from '@mantine/form';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { beforeAll, describe, expect, it, vi } from 'vitest';

import { ApiError } from '../api/errors';
import { initI18n } from '../i18n';
import { ConfigForm, validateFields } from './ConfigForm';
import { type FormField, initialValues, MASK, submittedValues } from './fields';
import { applyServerErrors } from './serverErrors';

const label = (en: string) => ({ en_US: en, zh_Hans: `${en}（中）` });
const fields: FormField[] = [
  { name: 'callback_url', label: label('Callback URL'), type: 'url', required: true, default: null, secret: false },
  { name: 'outbound_secret', label: label('Outbound secret'), type: 'string', required: false, default: null, secret: true },
  { name: 'signature_required', label: label('Require signatures'), type: 'boolean', required: false, default: false, secret: false },
  { name: 'inbound_secret', label: label('Inbound secret'), type: 'string', required: true, default: null, secret: true, showIf: { field: 'signature_required', operator: 'eq', value: true } },
  { name: 'mode', label: label('Mode'), type: 'select', required: true, default: 'person', secret: false, options: [{ name: 'person', label: label('Private') }, { name: 'group', label: label('Group') }] },
  { name: 'retries', label: label('Retries'), type: 'integer', required: false, default: 3, secret: false, min: 0, max: 10 },
];

/** What the harness exposes to the tests: its form and the last submitted values. */
const probe: { set: ((path: string, value: unknown) => void) | null; place: ((error: unknown) => number) | null } = { set: null, place: null };
let onValues = vi.fn();

function Harness({ stored, onSubmitted = onValues }: { stored?: Record<string, unknown>; onSubmitted?: (v: Record<string, unknown>) => void }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { config: initialValues(fields, stored) },
    validate: (v) => validateFields(fields, v.config, t, 'config'),
  });
  useEffect(() => {
    probe.set = (path, value) => form.setFieldValue(path, value);
    probe.place = (error) => applyServerErrors(form, error);
  });
  return (
    <MantineProvider>
      <form onSubmit={form.onSubmit((v) => onSubmitted(submittedValues(fields, v.config)))} noValidate>
        <ConfigForm form={form} fields={fields} prefix="config" />
        <button type="submit">go</button>
      </form>
    </MantineProvider>
  );
}

beforeAll(async () => {
  localStorage.setItem('langbot_language', 'en_US');
  await initI18n();
});

describe('ConfigForm', () => {
  it('renders each type with its default and hides show_if fields until they apply', async () => {
    render(<Harness />);
    expect(screen.getByLabelText(/Callback URL/)).toHaveProperty('type', 'url');
    expect(screen.getByLabelText(/Retries/)).toHaveProperty('value', '3');
    expect(screen.queryByLabelText(/Inbound secret/)).toBeNull();
    await userEvent.click(screen.getByLabelText(/Require signatures/));
    expect(screen.getByLabelText(/Inbound secret/)).toBeTruthy();
  });

  it('checks required and range before submitting, at the field', async () => {
    onValues = vi.fn();
    render(<Harness />);
    await userEvent.click(screen.getByLabelText(/Require signatures/));
    // The input clamps what is typed; a value from elsewhere (stored, pasted) is checked too.
    act(() => probe.set?.('config.retries', 11));
    await userEvent.click(screen.getByRole('button', { name: 'go' }));
    expect(onValues).not.toHaveBeenCalled();
    expect(screen.getAllByText('Required')).toHaveLength(2);
    expect(screen.getByText('Must be between 0 and 10')).toBeTruthy();
  });

  it('keeps a stored secret as *** unless changed, and says so', async () => {
    onValues = vi.fn();
    render(<Harness stored={{ callback_url: 'https://cb.example/x', outbound_secret: MASK, mode: 'group' }} />);
    expect(screen.getByText(/leave \*\*\* to keep it/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'go' }));
    expect(onValues).toHaveBeenLastCalledWith({ callback_url: 'https://cb.example/x', outbound_secret: MASK, signature_required: false, mode: 'group', retries: 3 });
    await userEvent.clear(screen.getByLabelText(/Outbound secret/));
    await userEvent.type(screen.getByLabelText(/Outbound secret/), 'new-secret');
    await userEvent.click(screen.getByRole('button', { name: 'go' }));
    expect(onValues).toHaveBeenLastCalledWith(expect.objectContaining({ outbound_secret: 'new-secret' }));
  });

  it('shows the server’s field errors at their fields', async () => {
    render(<Harness stored={{ callback_url: 'https://cb.example/x' }} />);
    const error = new ApiError(400, {
      code: 'invalid_request',
      msg: 'Invalid config.callback_url',
      request_id: 'r1',
      errors: [
        { field: 'config.callback_url', message: 'must be an http(s) URL' },
        { field: 'config.nope', message: 'not placed' },
      ],
    });
    const placed = vi.fn(() => (probe.place?.(error) ?? 0));
    await vi.waitFor(() => expect(probe.place).not.toBeNull());
    act(() => void placed());
    expect(placed).toHaveReturnedWith(1);
    expect(await screen.findByText('must be an http(s) URL')).toBeTruthy();
    expect(screen.queryByText('not placed')).toBeNull();
  });
});

import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import type { SessionValue } from '../../app/session-context';
import { SessionContext } from '../../app/session-context';
import { createQueryClient } from '../../app/queryClient';
import { addArea, initI18n } from '../../i18n';
import strings from '../../i18n/locales/en_US/mcpServers.json';
import type { McpServer } from './model';
import { ServerFormModal } from './ServerForm';

type Sent = { method: string; path: string; body: unknown };
let sent: Sent[] = [];

/** Answers each request with `reply(path, method)` and records what was sent. */
function serve(reply: (path: string, method: string) => { status: number; body: unknown }) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const path = new URL(request.url).pathname;
      const text = await request.text();
      sent.push({ method: request.method, path, body: text ? (JSON.parse(text) as unknown) : null });
      const { status, body } = reply(path, request.method);
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
}

const session = { ws: 'ws-1', can: () => true } as unknown as SessionValue;

function Wrap({ children }: { children: ReactNode }) {
  return (
    <MantineProvider>
      <QueryClientProvider client={createQueryClient()}>
        <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
      </QueryClientProvider>
    </MantineProvider>
  );
}

const stored: McpServer = {
  uuid: 'u1',
  workspace_uuid: 'ws-1',
  name: 'tools',
  enable: true,
  mode: 'http',
  extra_args: { url: 'https://tools.test/mcp', headers: { Authorization: '***' } } as unknown as Record<string, never>,
  readme: '',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  runtime_info: null,
};

beforeAll(async () => {
  localStorage.setItem('langbot_language', 'en_US');
  await initI18n();
  await addArea('mcpServers', strings);
});
beforeEach(() => {
  sent = [];
});
afterEach(() => vi.unstubAllGlobals());

describe('the MCP server form', { timeout: 30_000 }, () => {
  it('shows the server’s stdio refusal at the transport field', async () => {
    serve(() => ({ status: 403, body: { code: 'mcp_stdio_disabled', msg: 'stdio 已被禁用', request_id: 'r1', errors: [{ field: 'mode', message: 'stdio MCP servers are disabled' }] } }));
    const onClose = vi.fn();
    render(<ServerFormModal server={null} stdioEnabled={false} onClose={onClose} />, { wrapper: Wrap });
    await userEvent.type(screen.getByLabelText(/^Name/), 'local');
    await userEvent.selectOptions(screen.getByLabelText(/^Transport/), 'stdio');
    expect(screen.getByTestId('stdio-off-hint')).toBeTruthy();
    await userEvent.type(screen.getByLabelText(/^Command/), 'uvx');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(screen.getByLabelText(/^Transport/).getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByText('stdio 已被禁用')).toBeTruthy();
    expect(sent[0]).toEqual({ method: 'POST', path: '/api/v1/mcp/servers', body: { name: 'local', mode: 'stdio', enable: true, extra_args: { command: 'uvx', args: [], env: {} } } });
    expect(onClose).not.toHaveBeenCalled();
  });

  it('keeps a stored secret as *** unless replaced, and sends the replacement', async () => {
    serve(() => ({ status: 200, body: { code: 0, msg: 'ok', data: null } }));
    const onClose = vi.fn();
    const first = render(<ServerFormModal server={stored} stdioEnabled={false} onClose={onClose} />, { wrapper: Wrap });
    const value = screen.getByLabelText('Header 1 value');
    expect((value as HTMLInputElement).value).toBe('***');
    expect(screen.getByLabelText('Header 1 name').hasAttribute('readonly')).toBe(true);
    // A draft cannot carry the stored secret: testing it waits for a replacement.
    expect(screen.getByRole('button', { name: 'Test' }).hasAttribute('disabled')).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sent[0]?.body).toEqual({ name: 'tools', mode: 'http', extra_args: { url: 'https://tools.test/mcp', headers: { Authorization: '***' } } });

    first.unmount();
    sent = [];
    onClose.mockClear();
    render(<ServerFormModal server={stored} stdioEnabled={false} onClose={onClose} />, { wrapper: Wrap });
    await userEvent.click(screen.getByRole('button', { name: 'Replace the stored value of Authorization' }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Header 1 value')));
    await userEvent.keyboard('Bearer new');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sent[0]).toMatchObject({ method: 'PUT', path: '/api/v1/mcp/servers/tools', body: { extra_args: { headers: { Authorization: 'Bearer new' } } } });
  });

  it('tests a draft under the name `_` and shows what it found', async () => {
    const tools = [{ name: 'echo', description: 'Echoes', parameters: {} }];
    serve(() => ({
      status: 200,
      body: { code: 0, msg: 'ok', data: { runtime_info: { status: 'connected', retry_count: 0, tool_count: 1, tools, resource_count: 0, resources: [], resource_template_count: 0, resource_templates: [], resource_capabilities: {} } } },
    }));
    render(<ServerFormModal server={null} stdioEnabled={false} onClose={() => undefined} />, { wrapper: Wrap });
    await userEvent.type(screen.getByLabelText(/^Name/), 'draft');
    await userEvent.click(screen.getByLabelText(/^URL/));
    await userEvent.paste('http://127.0.0.1:9/mcp');
    await userEvent.click(screen.getByRole('button', { name: 'Test' }));
    await waitFor(() => expect(screen.getByTestId('test-result').textContent).toContain('1 tool found'));
    expect(screen.getByTestId('test-result').textContent).toContain('echo');
    expect(sent[0]).toEqual({ method: 'POST', path: '/api/v1/mcp/servers/_/test', body: { name: 'draft', mode: 'remote', extra_args: { url: 'http://127.0.0.1:9/mcp', headers: {} } } });
  });
});

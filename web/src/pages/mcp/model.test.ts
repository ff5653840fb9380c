import { describe, expect, it } from 'vitest';

import en from '../../i18n/locales/en_US/mcpServers.json';
import zh from '../../i18n/locales/zh_Hans/mcpServers.json';
import { anyConnecting, emptyValues, fieldAliases, fromServer, hasMask, type McpServer, MODES, statusOf, toExtraArgs } from './model';

function server(over: Partial<McpServer>): McpServer {
  return {
    uuid: 'u1',
    workspace_uuid: 'w1',
    name: 'tools',
    enable: true,
    mode: 'remote',
    extra_args: {},
    readme: '',
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    runtime_info: null,
    ...over,
  };
}

const info = (status: string) => ({
  status,
  retry_count: 0,
  tool_count: 0,
  tools: [],
  resource_count: 0,
  resources: [],
  resource_template_count: 0,
  resource_templates: [],
  resource_capabilities: {} as Record<string, never>,
});

describe('MCP server form values', () => {
  it('reads a stored HTTP server, secrets still masked, and writes only what its mode reads', () => {
    const values = fromServer(
      server({ extra_args: { url: 'https://x.test/mcp', headers: { Authorization: '***', 'X-Team': 'a' }, timeout: 10, command: 'stale' } as unknown as Record<string, never> }),
    );
    expect(values.headers).toEqual([
      { key: 'Authorization', value: '***' },
      { key: 'X-Team', value: 'a' },
    ]);
    expect(values.timeout).toBe(10);
    expect(values.tool_call_timeout_sec).toBe('');
    expect(hasMask(values)).toBe(true);
    expect(toExtraArgs(values)).toEqual({ url: 'https://x.test/mcp', headers: { Authorization: '***', 'X-Team': 'a' }, timeout: 10 });
  });

  it('writes stdio settings, dropping blank names and blank timeouts', () => {
    const values = { ...emptyValues(), mode: 'stdio' as const, command: ' uvx ', args: ['mcp-server', '--flag'], env: [{ key: 'TOKEN', value: 's' }, { key: ' ', value: '' }], tool_call_timeout_sec: 0 as const };
    expect(toExtraArgs(values)).toEqual({ command: 'uvx', args: ['mcp-server', '--flag'], env: { TOKEN: 's' }, tool_call_timeout_sec: 0 });
    expect(hasMask(values)).toBe(false);
  });

  it('maps the server’s field paths onto the form’s rows', () => {
    const values = { ...emptyValues(), headers: [{ key: 'Bad Header', value: 'x' }], args: ['a', 'b'] };
    const aliases = fieldAliases(values);
    expect(aliases['extra_args.headers.Bad Header']).toBe('headers.0.key');
    expect(aliases['extra_args.args[1]']).toBe('args.1');
    expect(aliases['extra_args.url']).toBe('url');
  });
});

describe('MCP server status', () => {
  it('is disabled without a session, else the session’s', () => {
    expect(statusOf(server({ enable: false }))).toBe('disabled');
    expect(statusOf(server({ runtime_info: info('connected') }))).toBe('connected');
    expect(statusOf(server({ runtime_info: info('error') }))).toBe('error');
    expect(statusOf(server({ runtime_info: info('connecting') }))).toBe('connecting');
  });

  it('polls only while a server connects', () => {
    expect(anyConnecting([server({ runtime_info: info('connected') })])).toBe(false);
    expect(anyConnecting([server({ runtime_info: info('connected') }), server({ runtime_info: info('connecting') })])).toBe(true);
    expect(anyConnecting(undefined)).toBe(false);
  });
});

describe('MCP server strings built at run time', () => {
  it('exist in both languages', () => {
    for (const tree of [en.mcpServers, zh.mcpServers] as Record<string, unknown>[]) {
      const has = (path: string) => path.split('.').reduce<unknown>((n, p) => (n as Record<string, unknown> | undefined)?.[p], tree) !== undefined;
      const keys = [
        ...MODES.flatMap((m) => [`mode.${m}`, `modeHint.${m}`]),
        ...['disabled', 'connecting', 'connected', 'error'].map((s) => `status.${s}`),
        ...['headers', 'env'].flatMap((l) => [l, `${l}None`]),
        ...['header', 'env'].flatMap((l) => [`${l}Name`, `${l}Value`, `remove_${l}`, `add_${l}`]),
        'remove_arg',
        'add_arg',
      ];
      expect(keys.filter((k) => !has(k))).toEqual([]);
    }
  });
});

// MCP servers as the form edits them, and back to the API's `extra_args` (remote/sse/http:
// `{url, headers, timeout, tool_call_timeout_sec}`; stdio: `{command, args, env,
// tool_call_timeout_sec}`). Stored secrets come back as `***`, and `***` sent back keeps them.
import type { components } from '../../api/schema';
import { MASK } from '../../forms/fields';

type S = components['schemas'];
export type McpServer = S['McpServer'];
export type RuntimeInfo = S['RuntimeInfo'];
export type ToolInfo = S['ToolInfo'];
export type OfferedTool = S['OfferedTool'];
export type McpServerResources = S['McpServerResources'];

export const MODES = ['remote', 'sse', 'http', 'stdio'] as const;
export type Mode = (typeof MODES)[number];
export const isMode = (v: string): v is Mode => (MODES as readonly string[]).includes(v);

/** The server's defaults (seconds), shown as placeholders. */
export const DEFAULT_TIMEOUT = 30;
export const DEFAULT_TOOL_CALL_TIMEOUT = 300;
export const MAX_TIMEOUT = 600;
export const MAX_TOOL_CALL_TIMEOUT = 86_400;

export interface Pair {
  key: string;
  value: string;
}

export interface Values {
  name: string;
  mode: Mode;
  enable: boolean;
  url: string;
  headers: Pair[];
  /** Seconds; '' for the server's default. */
  timeout: number | '';
  tool_call_timeout_sec: number | '';
  command: string;
  args: string[];
  env: Pair[];
}

export const isHttp = (mode: Mode) => mode !== 'stdio';

export function emptyValues(): Values {
  return { name: '', mode: 'remote', enable: true, url: '', headers: [], timeout: '', tool_call_timeout_sec: '', command: '', args: [], env: [] };
}

function pairs(value: unknown): Pair[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).map(([key, v]) => ({ key, value: typeof v === 'string' ? v : JSON.stringify(v) }));
}

function seconds(value: unknown): number | '' {
  return typeof value === 'number' && Number.isFinite(value) ? value : '';
}

/** The form's values for a stored server (its secrets stay `***`). */
export function fromServer(server: McpServer): Values {
  const extra = server.extra_args as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    name: server.name,
    mode: isMode(server.mode) ? server.mode : 'remote',
    enable: server.enable,
    url: str(extra.url),
    headers: pairs(extra.headers),
    timeout: seconds(extra.timeout),
    tool_call_timeout_sec: seconds(extra.tool_call_timeout_sec),
    command: str(extra.command),
    args: Array.isArray(extra.args) ? extra.args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))) : [],
    env: pairs(extra.env),
  };
}

function toObject(list: Pair[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of list) {
    const k = key.trim();
    if (k) out[k] = value;
  }
  return out;
}

/** The `extra_args` for the mode: only the fields that mode reads, blank timeouts left out. */
export function toExtraArgs(v: Values): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (isHttp(v.mode)) {
    out.url = v.url.trim();
    out.headers = toObject(v.headers);
    if (v.timeout !== '') out.timeout = v.timeout;
  } else {
    out.command = v.command.trim();
    out.args = v.args;
    out.env = toObject(v.env);
  }
  if (v.tool_call_timeout_sec !== '') out.tool_call_timeout_sec = v.tool_call_timeout_sec;
  return out;
}

/** Whether the values still hold a stored secret (which only the saved server knows). */
export function hasMask(v: Values): boolean {
  const rows = isHttp(v.mode) ? v.headers : v.env;
  return rows.some((p) => p.value === MASK) || (isHttp(v.mode) && v.url.includes(MASK));
}

/** Server field paths (`extra_args.headers.Authorization`, `extra_args.args[2]` …) → form paths. */
export function fieldAliases(v: Values): Record<string, string> {
  const aliases: Record<string, string> = {
    'extra_args.url': 'url',
    'extra_args.command': 'command',
    'extra_args.timeout': 'timeout',
    'extra_args.tool_call_timeout_sec': 'tool_call_timeout_sec',
  };
  v.headers.forEach((p, i) => (aliases[`extra_args.headers.${p.key.trim()}`] = `headers.${i}.key`));
  v.env.forEach((p, i) => (aliases[`extra_args.env.${p.key.trim()}`] = `env.${i}.key`));
  v.args.forEach((_, i) => (aliases[`extra_args.args[${i}]`] = `args.${i}`));
  return aliases;
}

export type Status = 'disabled' | 'connecting' | 'connected' | 'error';

export function statusOf(server: Pick<McpServer, 'enable' | 'runtime_info'>): Status {
  if (!server.enable || !server.runtime_info) return 'disabled';
  const s = server.runtime_info.status;
  return s === 'connected' || s === 'error' ? s : 'connecting';
}

export const STATUS_COLOR: Record<Status, string> = { disabled: 'gray', connecting: 'blue', connected: 'teal', error: 'red' };

/** Poll while a session is being established (its status settles on its own). */
export function anyConnecting(servers: McpServer[] | undefined): boolean {
  return (servers ?? []).some((s) => statusOf(s) === 'connecting');
}

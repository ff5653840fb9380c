// The route editor's draft: routes with stable keys for the list, to and from what the server
// stores, the server's field errors mapped to the route and condition they name, and moves.
import type { Operator, Route, RouteFilter, RouteInput, TargetType } from '../../api/types';

export interface DraftFilter {
  key: string;
  field: string;
  operator: Operator;
  /** As typed; `valueOf` turns it into the JSON value sent. */
  value: string;
}

export interface DraftRoute {
  key: string;
  id: string | null;
  event_pattern: string;
  target_type: TargetType;
  target_uuid: string;
  priority: number;
  enabled: boolean;
  description: string;
  filters: DraftFilter[];
}

let counter = 0;
export const newKey = (): string => `k${++counter}`;

/** The event's computed fields the route engine adds, and the paths of a `message.received`
 *  event (bots_pipelines §2: `sender`, `group`, `message_chain`). Any other dot path works too. */
export const FILTER_FIELDS = ['message_text', 'chat_type', 'is_at_bot', 'message_element_types', 'sender.id', 'sender.nickname', 'group.id', 'group.name', 'chat_id'] as const;

/** Fields whose values are booleans. */
const BOOLEAN_FIELDS = new Set(['is_at_bot']);

export function valueOf(filter: Pick<DraftFilter, 'field' | 'value'>): unknown {
  if (BOOLEAN_FIELDS.has(filter.field.trim())) return filter.value === 'true';
  return filter.value;
}

function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

export function fromRoute(route: Route): DraftRoute {
  return {
    key: newKey(),
    id: route.id,
    event_pattern: route.event_pattern,
    target_type: route.target_type,
    target_uuid: route.target_uuid,
    priority: route.priority,
    enabled: route.enabled,
    description: route.description,
    filters: route.filters.map((f: RouteFilter) => ({ key: newKey(), field: f.field, operator: f.operator ?? 'eq', value: shown(f.value) })),
  };
}

export function blankRoute(defaultPipeline: string): DraftRoute {
  return {
    key: newKey(),
    id: null,
    event_pattern: 'message.received',
    target_type: 'pipeline',
    target_uuid: defaultPipeline,
    priority: 0,
    enabled: true,
    description: '',
    filters: [],
  };
}

export function blankFilter(): DraftFilter {
  return { key: newKey(), field: 'message_text', operator: 'contains', value: '' };
}

export function toInput(route: DraftRoute): RouteInput {
  return {
    ...(route.id ? { id: route.id } : {}),
    event_pattern: route.event_pattern.trim(),
    target_type: route.target_type,
    target_uuid: route.target_type === 'pipeline' ? route.target_uuid : '',
    priority: route.priority,
    enabled: route.enabled,
    description: route.description,
    filters: route.filters.map((f) => ({ field: f.field.trim(), operator: f.operator, value: valueOf(f) as Record<string, never> })),
  };
}

/** Moves the item at `from` to `to` (both in range), answering a new list. */
export function move<T>(list: readonly T[], from: number, to: number): T[] {
  if (from === to || from < 0 || to < 0 || from >= list.length || to >= list.length) return [...list];
  const out = [...list];
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item as T);
  return out;
}

/** Where a server field error points: `event_bindings[2].filters[0].value` → route 2,
 *  filter 0, `value`; `event_bindings[1].target_uuid` → route 1, `target_uuid`. */
export interface RouteErrorAt {
  route: number;
  filter: number | null;
  field: string;
}

export function routeErrorAt(path: string): RouteErrorAt | null {
  const m = /^event_bindings\[(\d+)\](?:\.filters\[(\d+)\])?(?:\.(\w+))?$/.exec(path);
  if (!m) return null;
  return { route: Number(m[1]), filter: m[2] === undefined ? null : Number(m[2]), field: m[3] ?? '' };
}

/** The message text, chat and sender of a test event, as the http_bot adapter builds it. */
export interface TestEvent {
  text: string;
  chatType: 'person' | 'group';
  senderId: string;
  groupId: string;
  atBot: boolean;
}

export const BOT_ACCOUNT = 'bot';

export function eventData(e: TestEvent): Record<string, unknown> {
  const chain: Record<string, unknown>[] = [];
  if (e.atBot) chain.push({ type: 'At', target: BOT_ACCOUNT });
  chain.push({ type: 'Plain', text: e.text });
  return {
    message_chain: chain,
    sender: { id: e.senderId },
    group: e.chatType === 'group' ? { id: e.groupId || 'group-1' } : null,
    chat_id: e.chatType === 'group' ? e.groupId || 'group-1' : e.senderId,
  };
}

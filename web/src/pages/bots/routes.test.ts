import { describe, expect, it } from 'vitest';

import { blankRoute, eventData, fromRoute, move, routeErrorAt, toInput, valueOf } from './routes';

describe('route drafts', () => {
  it('round-trips a stored route, keeping its id and filter values', () => {
    const draft = fromRoute({
      id: 'r1',
      event_pattern: 'message.*',
      target_type: 'pipeline',
      target_uuid: 'p1',
      priority: 2,
      enabled: false,
      description: 'vip',
      order: 0,
      filters: [
        { field: 'is_at_bot', operator: 'eq', value: true as unknown as Record<string, never> },
        { field: 'message_text', operator: 'contains', value: 'hi' as unknown as Record<string, never> },
      ],
    });
    expect(draft.filters.map((f) => f.value)).toEqual(['true', 'hi']);
    const input = toInput(draft);
    expect(input).toMatchObject({ id: 'r1', event_pattern: 'message.*', target_uuid: 'p1', priority: 2, enabled: false });
    expect(input.filters?.map((f) => f.value)).toEqual([true, 'hi']);
  });

  it('sends no pipeline for a discard route', () => {
    const route = { ...blankRoute('p1'), target_type: 'discard' as const };
    expect(toInput(route).target_uuid).toBe('');
    expect(toInput(route).id).toBeUndefined();
  });

  it('moves an item and leaves out-of-range moves alone', () => {
    expect(move(['a', 'b', 'c'], 0, 2)).toEqual(['b', 'c', 'a']);
    expect(move(['a', 'b', 'c'], 2, 0)).toEqual(['c', 'a', 'b']);
    expect(move(['a', 'b'], 0, 5)).toEqual(['a', 'b']);
  });

  it('places a server field error at its route and condition', () => {
    expect(routeErrorAt('event_bindings[2].filters[0].value')).toEqual({ route: 2, filter: 0, field: 'value' });
    expect(routeErrorAt('event_bindings[1].target_uuid')).toEqual({ route: 1, filter: null, field: 'target_uuid' });
    expect(routeErrorAt('name')).toBeNull();
  });

  it('builds the event the http_bot adapter would route', () => {
    expect(eventData({ text: 'hi', chatType: 'group', senderId: 'u1', groupId: 'g1', atBot: true })).toEqual({
      message_chain: [{ type: 'At', target: 'bot' }, { type: 'Plain', text: 'hi' }],
      sender: { id: 'u1' },
      group: { id: 'g1' },
      chat_id: 'g1',
    });
    expect(valueOf({ field: 'is_at_bot', value: 'false' })).toBe(false);
  });
});

// The ordered routes of a bot: drag (pointer or keyboard: space, arrows, space) or the move
// buttons reorder them; conditions offer the route engine's fields and operators; the
// server's validation errors appear at the route and condition they name. Drag and drop
// (@dnd-kit) is its own chunk: the list renders at once with the move buttons, and the drag
// handles work once it is there.
import { ActionIcon, Autocomplete, Badge, Button, Card, Group, Select, Stack, Switch, Text, TextInput, Tooltip } from '@mantine/core';
import { ArrowDown, ArrowUp, GripVertical, Plus, Trash2, X } from 'lucide-react';
import { type CSSProperties, lazy, type ReactNode, Suspense } from 'react';
import { useTranslation } from 'react-i18next';

import { OPERATORS, type Pipeline } from '../../api/types';
import { NumberField } from '../../components/NumberField';
import { blankFilter, type DraftFilter, type DraftRoute, FILTER_FIELDS } from './routes';

export type RouteErrors = Record<string, string>;
/** The key of an error: `3` (route), `3.target_uuid`, `3.f1.value` (filter 1 of route 3). */
export const errorKey = (route: number, field: string, filter: number | null = null) => (filter === null ? `${route}.${field}` : `${route}.f${filter}.${field}`);

interface Props {
  routes: DraftRoute[];
  onChange: (routes: DraftRoute[]) => void;
  pipelines: Pipeline[];
  events: string[];
  errors: RouteErrors;
  /** The route the last dry-run selected (its index), highlighted. */
  matched: number | null;
  disabled: boolean;
}

export function RouteEditor({ routes, onChange, pipelines, events, errors, matched, disabled }: Props) {
  const moveTo = (from: number, to: number) => {
    if (to < 0 || to >= routes.length) return;
    const out = [...routes];
    const [item] = out.splice(from, 1);
    if (item) out.splice(to, 0, item);
    onChange(out);
  };
  const patch = (i: number, change: Partial<DraftRoute>) => onChange(routes.map((r, j) => (j === i ? { ...r, ...change } : r)));
  const patterns = [...new Set(['*', ...events, ...events.map((e) => `${e.split('.')[0] ?? e}.*`)])];
  const card = (route: DraftRoute, i: number, drag?: DragProps) => (
    <RouteCard
      key={route.key}
      route={route}
      index={i}
      count={routes.length}
      pipelines={pipelines}
      patterns={patterns}
      errors={errors}
      matched={matched === i}
      disabled={disabled}
      drag={drag}
      onPatch={(change) => patch(i, change)}
      onMove={(to) => moveTo(i, to)}
      onRemove={() => onChange(routes.filter((_, j) => j !== i))}
    />
  );
  const list = (render: (route: DraftRoute, i: number) => ReactNode) => (
    <Stack gap="sm" data-testid="route-list">
      {routes.map(render)}
    </Stack>
  );
  return (
    <Suspense fallback={list((route, i) => card(route, i))}>
      <SortableRoutes routes={routes} moveTo={moveTo} disabled={disabled} list={list} card={card} />
    </Suspense>
  );
}

/** What the drag-and-drop layer hands a card: its node, its handle and where it is dragged. */
export interface DragProps {
  setNodeRef: (node: HTMLElement | null) => void;
  setActivatorNodeRef: (node: HTMLElement | null) => void;
  handle: Record<string, unknown>;
  style: CSSProperties;
}

export interface SortableProps {
  routes: DraftRoute[];
  moveTo: (from: number, to: number) => void;
  disabled: boolean;
  list: (render: (route: DraftRoute, i: number) => ReactNode) => ReactNode;
  card: (route: DraftRoute, i: number, drag?: DragProps) => ReactNode;
}

const loadSortable = () => import('./SortableRoutes');
const SortableRoutes = lazy(loadSortable);
/** Starts fetching the drag-and-drop chunk (the bot page does while its data loads). */
export const preloadDrag = () => void loadSortable().catch(() => undefined);

interface CardProps {
  route: DraftRoute;
  index: number;
  count: number;
  pipelines: Pipeline[];
  patterns: string[];
  errors: RouteErrors;
  matched: boolean;
  disabled: boolean;
  drag?: DragProps;
  onPatch: (change: Partial<DraftRoute>) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}

function RouteCard({ route, index, count, pipelines, patterns, errors, matched, disabled, drag, onPatch, onMove, onRemove }: CardProps) {
  const { t } = useTranslation();
  const n = index + 1;
  const err = (field: string, filter: number | null = null) => errors[errorKey(index, field, filter)];
  const targets = [
    ...pipelines.map((p) => ({ value: `pipeline:${p.uuid}`, label: p.name })),
    { value: 'discard:', label: t('routes.discard') },
  ];
  const target = route.target_type === 'discard' ? 'discard:' : `pipeline:${route.target_uuid}`;
  const setFilters = (filters: DraftFilter[]) => onPatch({ filters });

  return (
    <Card
      ref={drag?.setNodeRef}
      withBorder
      padding="sm"
      style={{ ...drag?.style, borderColor: matched ? 'var(--mantine-color-teal-6)' : undefined }}
      data-testid={`route-${index}`}
      aria-label={t('routes.routeN', { n })}
      component="section"
    >
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            <ActionIcon variant="subtle" color="gray" ref={drag?.setActivatorNodeRef} {...drag?.handle} aria-label={t('routes.dragHandle', { n })} style={{ cursor: 'grab' }} disabled={disabled}>
              <GripVertical size={16} />
            </ActionIcon>
            <Text fw={600} size="sm">
              {t('routes.routeN', { n })}
            </Text>
            {matched && (
              <Badge color="teal" variant="light" data-testid="route-matched">
                {t('routes.matched')}
              </Badge>
            )}
            {!route.enabled && (
              <Badge color="gray" variant="light">
                {t('routes.disabled')}
              </Badge>
            )}
          </Group>
          <Group gap={4} wrap="nowrap">
            <Tooltip label={t('routes.moveUp', { n })}>
              <ActionIcon variant="subtle" onClick={() => onMove(index - 1)} disabled={disabled || index === 0} aria-label={t('routes.moveUp', { n })}>
                <ArrowUp size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label={t('routes.moveDown', { n })}>
              <ActionIcon variant="subtle" onClick={() => onMove(index + 1)} disabled={disabled || index === count - 1} aria-label={t('routes.moveDown', { n })}>
                <ArrowDown size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label={t('routes.remove', { n })}>
              <ActionIcon variant="subtle" color="red" onClick={onRemove} disabled={disabled} aria-label={t('routes.remove', { n })}>
                <Trash2 size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </Group>
        <Group grow align="flex-start" wrap="wrap">
          <Autocomplete
            label={t('routes.eventPattern')}
            value={route.event_pattern}
            onChange={(event_pattern) => onPatch({ event_pattern })}
            data={patterns}
            error={err('event_pattern')}
            disabled={disabled}
            miw={180}
          />
          <Select
            label={t('routes.target')}
            value={target}
            data={targets}
            allowDeselect={false}
            onChange={(v) => {
              if (!v) return;
              const [type, uuid] = v.split(':');
              onPatch({ target_type: type === 'discard' ? 'discard' : 'pipeline', target_uuid: uuid ?? '' });
            }}
            error={err('target_uuid') ?? err('target_type')}
            disabled={disabled}
            miw={180}
          />
          <NumberField
            label={t('routes.priority')}
            value={route.priority}
            onChange={(v) => onPatch({ priority: typeof v === 'number' ? v : Number(v) || 0 })}
            allowDecimal={false}
            error={err('priority')}
            disabled={disabled}
            maw={140}
          />
        </Group>
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label={t('routes.description')}
            value={route.description}
            onChange={(e) => onPatch({ description: e.currentTarget.value })}
            error={err('description')}
            disabled={disabled}
            style={{ flex: 1 }}
            miw={200}
          />
          <Switch label={t('routes.enabled')} checked={route.enabled} onChange={(e) => onPatch({ enabled: e.currentTarget.checked })} disabled={disabled} mb={8} />
        </Group>
        <Text size="sm" fw={500}>
          {t('routes.conditions')}
        </Text>
        {route.filters.length === 0 && (
          <Text size="xs" c="dimmed">
            {t('routes.noConditions')}
          </Text>
        )}
        {err('filters') && (
          <Text size="xs" c="red">
            {err('filters')}
          </Text>
        )}
        {route.filters.map((filter, j) => {
          const setFilter = (change: Partial<DraftFilter>) => setFilters(route.filters.map((f, k) => (k === j ? { ...f, ...change } : f)));
          const label = (what: string) => t('routes.conditionPart', { what, n: j + 1 });
          return (
            <Group key={filter.key} align="flex-start" wrap="wrap" gap="xs" data-testid={`route-${index}-filter-${j}`}>
              <Autocomplete aria-label={label(t('routes.field'))} placeholder={t('routes.field')} value={filter.field} onChange={(field) => setFilter({ field })} data={[...FILTER_FIELDS]} error={err('field', j)} disabled={disabled} miw={170} />
              <Select
                aria-label={label(t('routes.operator'))}
                value={filter.operator}
                data={OPERATORS.map((o) => ({ value: o, label: t(`routes.op.${o}`) }))}
                allowDeselect={false}
                onChange={(v) => v && setFilter({ operator: v })}
                error={err('operator', j)}
                disabled={disabled}
                w={170}
              />
              {filter.field === 'is_at_bot' ? (
                <Select aria-label={label(t('routes.value'))} value={filter.value === 'true' ? 'true' : 'false'} data={[{ value: 'true', label: t('routes.yes') }, { value: 'false', label: t('routes.no') }]} allowDeselect={false} onChange={(v) => setFilter({ value: v ?? 'false' })} error={err('value', j)} disabled={disabled} w={120} />
              ) : (
                <TextInput aria-label={label(t('routes.value'))} placeholder={t('routes.value')} value={filter.value} onChange={(e) => setFilter({ value: e.currentTarget.value })} error={err('value', j)} disabled={disabled} style={{ flex: 1 }} miw={160} />
              )}
              <ActionIcon variant="subtle" color="gray" mt={4} onClick={() => setFilters(route.filters.filter((_, k) => k !== j))} disabled={disabled} aria-label={t('routes.removeCondition', { n: j + 1 })}>
                <X size={16} />
              </ActionIcon>
            </Group>
          );
        })}
        <Group>
          <Button size="compact-sm" variant="subtle" leftSection={<Plus size={14} />} onClick={() => setFilters([...route.filters, blankFilter()])} disabled={disabled}>
            {t('routes.addCondition')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

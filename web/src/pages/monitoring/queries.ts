// Monitoring reads: the dashboard (one combined read), token statistics, executions and
// sessions paged by the server, an execution's detail, the duration sample; reset-context.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { keys } from '../../api/keys';
import type { StatusGroup } from '../../api/types';
import { useSession } from '../../app/session-context';

export type Mode = 'all' | 'real' | 'debug';
export type Window = '1h' | '24h' | '7d' | '30d';
export const WINDOWS: readonly Window[] = ['1h', '24h', '7d', '30d'];
const WINDOW_MS: Record<Window, number> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };

export interface Filters {
  window: Window;
  bots: string[];
  pipelines: string[];
  statuses: StatusGroup[];
  mode: Mode;
}

export const EXECUTIONS_PAGE = 20;
export const SESSIONS_PAGE = 20;
/** How many of the newest finished executions the duration percentiles are taken over. */
export const DURATION_SAMPLE = 1000;

/** The list filters as query parameters; the window ends now (rounded to the minute, so the
 *  cache key stays put while the page is open). */
export function filterQuery(f: Filters, now = Date.now()) {
  const end = Math.ceil(now / 60_000) * 60_000;
  return {
    start_time: new Date(end - WINDOW_MS[f.window]).toISOString(),
    end_time: new Date(end).toISOString(),
    ...(f.bots.length ? { bot_ids: f.bots } : {}),
    ...(f.pipelines.length ? { pipeline_ids: f.pipelines } : {}),
    ...(f.statuses.length ? { statuses: f.statuses } : {}),
    mode: f.mode,
    bucket: f.window === '7d' || f.window === '30d' ? ('day' as const) : ('hour' as const),
  };
}

/** Nearest-rank percentile of `values` (unsorted), or null when there are none. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? null;
}

export function useDashboard(f: Filters, page: number) {
  const { ws } = useSession();
  const query = filterQuery(f);
  return useQuery({
    queryKey: [...keys.monitoring(ws), 'data', query, page],
    queryFn: () => unwrap(api.GET('/api/v1/monitoring/data', { params: { query: { ...query, limit: EXECUTIONS_PAGE, offset: (page - 1) * EXECUTIONS_PAGE } } })),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}

export function useTokenStats(f: Filters) {
  const { ws } = useSession();
  const query = filterQuery(f);
  return useQuery({
    queryKey: [...keys.monitoring(ws), 'tokens', query],
    queryFn: () => unwrap(api.GET('/api/v1/monitoring/token-statistics', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}

/** p50/p95 over the newest finished executions in scope. */
export function useDurations(f: Filters) {
  const { ws } = useSession();
  const query = filterQuery(f);
  return useQuery({
    queryKey: [...keys.monitoring(ws), 'durations', query],
    queryFn: async () => {
      const page = await unwrap(api.GET('/api/v1/monitoring/executions', { params: { query: { ...query, statuses: ['completed'], limit: DURATION_SAMPLE } } }));
      const values = page.items.map((e) => e.duration_ms).filter((d): d is number => typeof d === 'number');
      return { p50: percentile(values, 50), p95: percentile(values, 95), sample: values.length };
    },
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}

export function useSessions(f: Filters, page: number) {
  const { ws } = useSession();
  const query = filterQuery(f);
  return useQuery({
    queryKey: [...keys.monitoring(ws), 'sessions', query, page],
    queryFn: () => unwrap(api.GET('/api/v1/monitoring/sessions', { params: { query: { ...query, limit: SESSIONS_PAGE, offset: (page - 1) * SESSIONS_PAGE } } })),
    placeholderData: keepPreviousData,
  });
}

export function useExecution(source: string, id: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...keys.monitoring(ws), 'execution', source, id],
    queryFn: () => unwrap(api.GET('/api/v1/monitoring/executions/{source}/{execution_id}', { params: { path: { source, execution_id: id }, query: { limit: 20 } } })),
  });
}

export function useResetContext() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { bot_id: string; session_id: string }) => unwrap(api.POST('/api/v1/monitoring/sessions/reset-context', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...keys.monitoring(ws), 'sessions'] }),
    meta: { quiet: true },
  });
}

// Bots, their adapters, routes, dry-runs and route statuses.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { keys } from '../../api/keys';
import type { CreateBot, DryRunRequest, UpdateBot } from '../../api/types';
import { useSession } from '../../app/session-context';

export const BOTS_PAGE = 20;

export function useAdapters() {
  const { ws } = useSession();
  return useQuery({
    queryKey: keys.adapters(ws),
    queryFn: () => unwrap(api.GET('/api/v1/platform/adapters')),
    staleTime: 5 * 60_000,
  });
}

export function useBots(page: number) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...keys.bots(ws), 'page', page],
    queryFn: () =>
      unwrap(api.GET('/api/v1/platform/bots', { params: { query: { limit: BOTS_PAGE, offset: (page - 1) * BOTS_PAGE } } })),
    placeholderData: keepPreviousData,
  });
}

export function useBot(uuid: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: keys.bot(ws, uuid),
    queryFn: () => unwrap(api.GET('/api/v1/platform/bots/{bot_uuid}', { params: { path: { bot_uuid: uuid } } })),
  });
}

/** The newest errors of the listed bots (one call for the page), newest first. */
export function useBotErrors(botIds: string[]) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...keys.monitoring(ws), 'bot-errors', botIds],
    queryFn: () =>
      unwrap(api.GET('/api/v1/monitoring/errors', { params: { query: { bot_ids: botIds, limit: 100 } } })),
    enabled: botIds.length > 0,
  });
}

export function useRouteStatus(uuid: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: keys.routeStatus(ws, uuid),
    queryFn: () =>
      unwrap(api.GET('/api/v1/platform/bots/{bot_uuid}/event-routes/status', { params: { path: { bot_uuid: uuid } } })),
  });
}

/** Recent inbound messages of a bot, to replay in the dry-run. */
export function useRecentMessages(botId: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...keys.monitoring(ws), 'recent-messages', botId],
    queryFn: () => unwrap(api.GET('/api/v1/monitoring/messages', { params: { query: { bot_ids: [botId], limit: 20 } } })),
  });
}

function useInvalidateBots() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: keys.bots(ws) });
}

export function useCreateBot() {
  const invalidate = useInvalidateBots();
  return useMutation({
    mutationFn: (body: CreateBot) => unwrap(api.POST('/api/v1/platform/bots', { body })),
    onSuccess: invalidate,
    meta: { quiet: true },
  });
}

export function useUpdateBot(quiet = true) {
  const invalidate = useInvalidateBots();
  return useMutation({
    mutationFn: (v: { uuid: string; body: UpdateBot }) =>
      unwrap(api.PUT('/api/v1/platform/bots/{bot_uuid}', { params: { path: { bot_uuid: v.uuid } }, body: v.body })),
    onSettled: invalidate,
    meta: { quiet },
  });
}

export function useDeleteBot() {
  const invalidate = useInvalidateBots();
  return useMutation({
    mutationFn: (uuid: string) => unwrap(api.DELETE('/api/v1/platform/bots/{bot_uuid}', { params: { path: { bot_uuid: uuid } } })),
    onSuccess: invalidate,
  });
}

export function useDryRun(uuid: string) {
  return useMutation({
    mutationFn: (body: DryRunRequest) =>
      unwrap(api.POST('/api/v1/platform/bots/{bot_uuid}/event-routes/dry-run', { params: { path: { bot_uuid: uuid } }, body })),
    meta: { quiet: true },
  });
}

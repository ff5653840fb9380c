import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { keys } from '../../api/keys';
import type { CreateApiKey } from '../../api/types';
import { useSession } from '../../app/session-context';

export const KEYS_PAGE = 20;

export function useApiKeys(page: number) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...keys.apiKeys(ws), page],
    queryFn: () => unwrap(api.GET('/api/v1/apikeys', { params: { query: { limit: KEYS_PAGE, offset: (page - 1) * KEYS_PAGE } } })),
    placeholderData: keepPreviousData,
  });
}

export function useCreateApiKey() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateApiKey) => unwrap(api.POST('/api/v1/apikeys', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.apiKeys(ws) }),
    meta: { quiet: true },
  });
}

export function useRevokeApiKey() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/v1/apikeys/{key_id}', { params: { path: { key_id: id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.apiKeys(ws) }),
  });
}

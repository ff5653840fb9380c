// Providers, models and the starred model: queries, and mutations that invalidate what they change.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { keys } from '../../api/keys';
import type { CreateProvider, Model, ModelInput, ModelKind, Pipeline, UpdateProvider } from '../../api/types';
import { useSession } from '../../app/session-context';

export const PROVIDERS_PAGE = 20;
export const MODELS_PAGE = 25;

export function useRequesters() {
  const { ws } = useSession();
  return useQuery({
    queryKey: keys.requesters(ws),
    queryFn: () => unwrap(api.GET('/api/v1/provider/requesters')),
    staleTime: 5 * 60_000,
  });
}

export function useProviders(page: number) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...keys.providers(ws), page],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/provider/providers', {
          params: { query: { include_secret: false, limit: PROVIDERS_PAGE, offset: (page - 1) * PROVIDERS_PAGE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

function listModels(kind: ModelKind, provider: string, limit: number, offset: number) {
  const query = { params: { query: { provider_uuid: provider, include_secret: false, limit, offset } } };
  switch (kind) {
    case 'llm':
      return unwrap(api.GET('/api/v1/provider/models/llm', query));
    case 'embedding':
      return unwrap(api.GET('/api/v1/provider/models/embedding', query));
    case 'rerank':
      return unwrap(api.GET('/api/v1/provider/models/rerank', query));
  }
}

export function useModels(kind: ModelKind, provider: string, page: number, enabled = true) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...keys.modelsOf(ws, kind, provider), page],
    queryFn: () => listModels(kind, provider, MODELS_PAGE, (page - 1) * MODELS_PAGE),
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** Every item of a paged list (the server caps a page at 500). */
async function all<T>(fetchPage: (limit: number, offset: number) => Promise<{ total: number; items: T[] }>): Promise<T[]> {
  const out: T[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await fetchPage(500, offset);
    out.push(...page.items);
    if (page.items.length === 0 || out.length >= page.total) return out;
  }
}

export function allModelsOf(kind: ModelKind, provider: string): Promise<Model[]> {
  return all(async (limit, offset) => {
    const page = await listModels(kind, provider, limit, offset);
    return { total: page.total, items: page.models };
  });
}

export function allPipelines(): Promise<Pipeline[]> {
  return all(async (limit, offset) => {
    const page = await unwrap(api.GET('/api/v1/pipelines', { params: { query: { limit, offset } } }));
    return { total: page.total, items: page.pipelines };
  });
}

/** Pipelines whose local agent names one of `models` as primary or fallback (what the server
 *  reports as `referencing_pipelines` after a delete). */
export function pipelinesUsing(pipelines: Pipeline[], models: string[]): Pipeline[] {
  const wanted = new Set(models);
  return pipelines.filter((p) => {
    const c = p.config.ai.runner_config;
    return [c['local-agent'], c['plugin:langbot-team/LocalAgent/default']].some(
      (agent) => !!agent && (wanted.has(agent.model.primary) || agent.model.fallbacks.some((f) => wanted.has(f))),
    );
  });
}

export function useStarred() {
  const { ws } = useSession();
  return useQuery({
    queryKey: keys.starred(ws),
    queryFn: () => unwrap(api.GET('/api/v1/provider/models/llm/_/starred')),
  });
}

function useInvalidateModels() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.providers(ws) }),
      queryClient.invalidateQueries({ queryKey: keys.models(ws) }),
      queryClient.invalidateQueries({ queryKey: keys.starred(ws) }),
      queryClient.invalidateQueries({ queryKey: keys.pipelines(ws) }),
    ]);
}

export function useSetStarred() {
  const invalidate = useInvalidateModels();
  return useMutation({
    mutationFn: (uuid: string | null) => unwrap(api.PUT('/api/v1/provider/models/llm/_/starred', { body: { uuid } })),
    onSettled: invalidate,
  });
}

export function useSaveProvider() {
  const invalidate = useInvalidateModels();
  return useMutation({
    mutationFn: (v: { uuid: string | null; body: CreateProvider }) => {
      if (v.uuid === null) return unwrap(api.POST('/api/v1/provider/providers', { body: v.body }));
      const update: UpdateProvider = v.body;
      return unwrap(
        api.PUT('/api/v1/provider/providers/{provider_uuid}', { params: { path: { provider_uuid: v.uuid } }, body: update }),
      ).then(() => ({ uuid: v.uuid }));
    },
    onSuccess: invalidate,
    meta: { quiet: true },
  });
}

export function useDeleteProvider() {
  const invalidate = useInvalidateModels();
  return useMutation({
    mutationFn: (v: { uuid: string; cascade: boolean }) =>
      unwrap(
        api.DELETE('/api/v1/provider/providers/{provider_uuid}', {
          params: { path: { provider_uuid: v.uuid }, query: { cascade: v.cascade } },
        }),
      ),
    onSettled: invalidate,
  });
}

export function useSaveModel(kind: ModelKind) {
  const invalidate = useInvalidateModels();
  return useMutation({
    mutationFn: async (v: { uuid: string | null; body: ModelInput }) => {
      if (v.uuid === null) {
        switch (kind) {
          case 'llm':
            return unwrap(api.POST('/api/v1/provider/models/llm', { body: v.body }));
          case 'embedding':
            return unwrap(api.POST('/api/v1/provider/models/embedding', { body: v.body }));
          case 'rerank':
            return unwrap(api.POST('/api/v1/provider/models/rerank', { body: v.body }));
        }
      }
      const opts = { params: { path: { model_uuid: v.uuid } }, body: v.body };
      switch (kind) {
        case 'llm':
          await unwrap(api.PUT('/api/v1/provider/models/llm/{model_uuid}', opts));
          break;
        case 'embedding':
          await unwrap(api.PUT('/api/v1/provider/models/embedding/{model_uuid}', opts));
          break;
        case 'rerank':
          await unwrap(api.PUT('/api/v1/provider/models/rerank/{model_uuid}', opts));
          break;
      }
      return { uuid: v.uuid };
    },
    onSuccess: invalidate,
    meta: { quiet: true },
  });
}

export function useDeleteModel(kind: ModelKind) {
  const invalidate = useInvalidateModels();
  return useMutation({
    mutationFn: (uuid: string) => {
      const opts = { params: { path: { model_uuid: uuid } } };
      switch (kind) {
        case 'llm':
          return unwrap(api.DELETE('/api/v1/provider/models/llm/{model_uuid}', opts));
        case 'embedding':
          return unwrap(api.DELETE('/api/v1/provider/models/embedding/{model_uuid}', opts));
        case 'rerank':
          return unwrap(api.DELETE('/api/v1/provider/models/rerank/{model_uuid}', opts));
      }
    },
    onSettled: invalidate,
  });
}

export function useTestModel(kind: ModelKind) {
  return useMutation({
    mutationFn: (uuid: string) => {
      const opts = { params: { path: { model_uuid: uuid } }, body: {} };
      switch (kind) {
        case 'llm':
          return unwrap(api.POST('/api/v1/provider/models/llm/{model_uuid}/test', opts));
        case 'embedding':
          return unwrap(api.POST('/api/v1/provider/models/embedding/{model_uuid}/test', opts));
        case 'rerank':
          return unwrap(api.POST('/api/v1/provider/models/rerank/{model_uuid}/test', opts));
      }
    },
    // The result (latency or the provider's error) is shown beside the model.
    meta: { quiet: true },
  });
}

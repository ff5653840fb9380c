// Pipelines: the list, one pipeline, its metadata (the config form), extensions, and the
// mutations that invalidate what they change (routes may point at a pipeline, so bots too).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { keys } from '../../api/keys';
import type { UpdatePipeline, UpdatePipelineExtensions } from '../../api/types';
import { useSession } from '../../app/session-context';
import { allPipelines } from '../models/queries';

export const PIPELINES_PAGE = 20;

export function usePipelines(page: number) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...keys.pipelines(ws), 'page', page],
    queryFn: () =>
      unwrap(api.GET('/api/v1/pipelines', { params: { query: { limit: PIPELINES_PAGE, offset: (page - 1) * PIPELINES_PAGE, sort_by: 'created_at', sort_order: 'ASC' } } })),
    placeholderData: keepPreviousData,
  });
}

/** Every pipeline (for pickers: route targets, filters). */
export function useAllPipelines() {
  const { ws } = useSession();
  return useQuery({ queryKey: [...keys.pipelines(ws), 'all'], queryFn: allPipelines });
}

export function usePipeline(uuid: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: keys.pipeline(ws, uuid),
    queryFn: () => unwrap(api.GET('/api/v1/pipelines/{pipeline_uuid}', { params: { path: { pipeline_uuid: uuid } } })),
  });
}

export function usePipelineMetadata() {
  const { ws } = useSession();
  return useQuery({
    queryKey: keys.pipelineMetadata(ws),
    queryFn: () => unwrap(api.GET('/api/v1/pipelines/_/metadata')),
  });
}

export function useExtensions(uuid: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: keys.extensions(ws, uuid),
    queryFn: () => unwrap(api.GET('/api/v1/pipelines/{pipeline_uuid}/extensions', { params: { path: { pipeline_uuid: uuid } } })),
  });
}

function useInvalidate() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.pipelines(ws) }),
      queryClient.invalidateQueries({ queryKey: keys.bots(ws) }),
    ]);
}

export function useCreatePipeline() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: { name: string; description: string }) => unwrap(api.POST('/api/v1/pipelines', { body })),
    onSuccess: invalidate,
    meta: { quiet: true },
  });
}

export function useUpdatePipeline(uuid: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: UpdatePipeline) =>
      unwrap(api.PUT('/api/v1/pipelines/{pipeline_uuid}', { params: { path: { pipeline_uuid: uuid } }, body })),
    onSuccess: invalidate,
    meta: { quiet: true },
  });
}

export function useCopyPipeline() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (uuid: string) => unwrap(api.POST('/api/v1/pipelines/{pipeline_uuid}/copy', { params: { path: { pipeline_uuid: uuid } } })),
    onSuccess: invalidate,
  });
}

export function useSetDefault() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (uuid: string) => unwrap(api.PUT('/api/v1/pipelines/{pipeline_uuid}/default', { params: { path: { pipeline_uuid: uuid } } })),
    onSettled: invalidate,
  });
}

export function useDeletePipeline() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (v: { uuid: string; cascade: boolean }) =>
      unwrap(api.DELETE('/api/v1/pipelines/{pipeline_uuid}', { params: { path: { pipeline_uuid: v.uuid }, query: { cascade: v.cascade } } })),
    onSettled: invalidate,
    meta: { quiet: true },
  });
}

export function useUpdateExtensions(uuid: string) {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdatePipelineExtensions) =>
      unwrap(api.PUT('/api/v1/pipelines/{pipeline_uuid}/extensions', { params: { path: { pipeline_uuid: uuid } }, body })),
    onSuccess: (data) => queryClient.setQueryData(keys.extensions(ws, uuid), data),
  });
}

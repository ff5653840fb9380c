// MCP servers and the tools they offer: queries (polled while a session connects), and
// mutations that invalidate what they change.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { jsonObject } from '../../api/json';
import { keys } from '../../api/keys';
import { useSession } from '../../app/session-context';
import { anyConnecting, type Mode } from './model';

export const POLL_MS = 2000;

export const mcpKeys = {
  servers: (ws: string) => [...keys.workspace(ws), 'mcp-servers'] as const,
  server: (ws: string, name: string) => [...keys.workspace(ws), 'mcp-servers', name] as const,
  resources: (ws: string, name: string) => [...keys.workspace(ws), 'mcp-servers', name, 'resources'] as const,
  tools: (ws: string) => [...keys.workspace(ws), 'tools'] as const,
};

export function useMcpServers() {
  const { ws } = useSession();
  return useQuery({
    queryKey: mcpKeys.servers(ws),
    queryFn: () => unwrap(api.GET('/api/v1/mcp/servers')),
    refetchInterval: (query) => (anyConnecting(query.state.data?.servers) ? POLL_MS : false),
  });
}

export function useMcpServer(name: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: mcpKeys.server(ws, name),
    queryFn: () => unwrap(api.GET('/api/v1/mcp/servers/{server_name}', { params: { path: { server_name: name } } })),
    refetchInterval: (query) => (query.state.data && anyConnecting([query.state.data.server]) ? POLL_MS : false),
  });
}

/** `status` is part of the key: the resources are asked for again once the session changes. */
export function useMcpResources(name: string, status: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...mcpKeys.resources(ws, name), status],
    queryFn: () => unwrap(api.GET('/api/v1/mcp/servers/{server_name}/resources', { params: { path: { server_name: name } } })),
  });
}

/** The tools an agent is offered from every enabled, connected server (no pipeline's bindings).
 *  `signature` changes whenever a server's status or tool count does, so the list follows. */
export function useOfferedTools(signature: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...mcpKeys.tools(ws), signature],
    queryFn: () => unwrap(api.GET('/api/v1/tools')),
    placeholderData: keepPreviousData,
  });
}

function useInvalidate() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: mcpKeys.servers(ws) }),
      queryClient.invalidateQueries({ queryKey: mcpKeys.tools(ws) }),
      // Pipelines list the servers they may bind.
      queryClient.invalidateQueries({ queryKey: keys.pipelines(ws) }),
    ]);
}

export interface ServerBody {
  name: string;
  mode: Mode;
  enable: boolean;
  extra_args: Record<string, unknown>;
}

/** Creates (`original` null) or changes a server; `enable` is only sent on create (the list's
 *  switch changes it for a saved server). */
export function useSaveMcpServer() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (v: { original: string | null; body: ServerBody }) => {
      const { name, mode, enable, extra_args } = v.body;
      if (v.original === null) {
        await unwrap(api.POST('/api/v1/mcp/servers', { body: { name, mode, enable, extra_args: jsonObject(extra_args) } }));
      } else {
        await unwrap(
          api.PUT('/api/v1/mcp/servers/{server_name}', {
            params: { path: { server_name: v.original } },
            body: { name, mode, extra_args: jsonObject(extra_args) },
          }),
        );
      }
      return name;
    },
    onSuccess: invalidate,
    meta: { quiet: true },
  });
}

export function useToggleMcpServer() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (v: { name: string; enable: boolean }) =>
      unwrap(api.PUT('/api/v1/mcp/servers/{server_name}', { params: { path: { server_name: v.name } }, body: { enable: v.enable } })),
    onSettled: invalidate,
  });
}

export function useDeleteMcpServer() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (name: string) => unwrap(api.DELETE('/api/v1/mcp/servers/{server_name}', { params: { path: { server_name: name } } })),
    onSettled: invalidate,
  });
}

/** Tests a saved server by name (reconnecting its session), or a draft (`draft` given). */
export function useTestMcpServer() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (v: { name: string } | { draft: Omit<ServerBody, 'enable'> }) => {
      if ('name' in v) {
        return unwrap(api.POST('/api/v1/mcp/servers/{server_name}/test', { params: { path: { server_name: v.name } }, body: {} }));
      }
      const { name, mode, extra_args } = v.draft;
      return unwrap(
        api.POST('/api/v1/mcp/servers/{server_name}/test', {
          params: { path: { server_name: '_' } },
          body: { name: name || null, mode, extra_args: jsonObject(extra_args) },
        }),
      );
    },
    // A saved server's session was reopened: its status and tools may have changed.
    onSuccess: (_data, v) => ('name' in v ? invalidate() : undefined),
    // The outcome (or the refusal) is shown where the test was asked for.
    meta: { quiet: true },
  });
}

// Plugins: the list (polled while this Workspace's runtime starts), the plugin system's state,
// and mutations that refresh what they change.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { jsonObject } from '../../api/json';
import { keys } from '../../api/keys';
import { useSession } from '../../app/session-context';

const POLL_MS = 2000;

const pluginKeys = {
  all: (ws: string) => [...keys.workspace(ws), 'plugins'] as const,
  status: (ws: string) => [...keys.workspace(ws), 'plugins', 'status'] as const,
  one: (ws: string, id: string, what: string) => [...keys.workspace(ws), 'plugins', id, what] as const,
};

type Path = { author: string; name: string };
const path = (id: string): Path => {
  const [author = '', name = ''] = id.split('/');
  return { author, name };
};

/** `waiting`: an enabled plugin is not running yet (the runtime is being started for it). */
export function usePluginSystem(waiting: boolean) {
  const { ws } = useSession();
  return useQuery({
    queryKey: pluginKeys.status(ws),
    queryFn: () => unwrap(api.GET('/api/v1/system/status/plugin-system')),
    refetchInterval: (query) => (waiting || query.state.data?.runtime_state === 'starting' ? POLL_MS : false),
  });
}

/** Whether an enabled plugin is still waiting for the runtime to run it. */
export const waitingFor = (plugins: { enabled: boolean; status: string }[] | undefined): boolean =>
  plugins?.some((p) => p.enabled && p.status !== 'initialized') ?? false;

export function usePlugins(starting: boolean) {
  const { ws } = useSession();
  return useQuery({
    queryKey: pluginKeys.all(ws),
    queryFn: () => unwrap(api.GET('/api/v1/plugins')),
    // A plugin shows `unmounted` until the runtime has it running.
    refetchInterval: (query) => (starting || waitingFor(query.state.data?.plugins) ? POLL_MS : false),
  });
}

export function usePluginConfig(id: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: pluginKeys.one(ws, id, 'config'),
    queryFn: () => unwrap(api.GET('/api/v1/plugins/{author}/{name}/config', { params: { path: path(id) } })),
  });
}

export function usePluginReadme(id: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: pluginKeys.one(ws, id, 'readme'),
    queryFn: () => unwrap(api.GET('/api/v1/plugins/{author}/{name}/readme', { params: { path: path(id) } })),
  });
}

export function usePluginIcon(id: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: pluginKeys.one(ws, id, 'icon'),
    queryFn: () => unwrap(api.GET('/api/v1/plugins/{author}/{name}/icon', { params: { path: path(id) } })),
    staleTime: Infinity,
    meta: { quiet: true },
  });
}

export function usePluginLogs(id: string) {
  const { ws } = useSession();
  return useQuery({
    queryKey: pluginKeys.one(ws, id, 'logs'),
    queryFn: () => unwrap(api.GET('/api/v1/plugins/{author}/{name}/logs', { params: { path: path(id), query: { limit: 200 } } })),
    refetchInterval: POLL_MS * 2,
  });
}

function useInvalidate() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: pluginKeys.all(ws) }),
      // The agent's offered tools and the pipelines' extension choices include plugins.
      queryClient.invalidateQueries({ queryKey: [...keys.workspace(ws), 'tools'] }),
      queryClient.invalidateQueries({ queryKey: keys.pipelines(ws) }),
    ]);
}

/** Uploads a package file (`lbp build`'s .lbpkg) as multipart `file`. */
export function useInstallPlugin() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (file: File) =>
      unwrap(
        api.POST('/api/v1/plugins/install/local', {
          body: { file: '' },
          bodySerializer: () => {
            const form = new FormData();
            form.append('file', file, file.name);
            return form;
          },
        }),
      ),
    onSuccess: invalidate,
    meta: { quiet: true },
  });
}

export function useSetPluginEnabled() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (v: { id: string; enabled: boolean }) =>
      unwrap(api.PUT('/api/v1/plugins/{author}/{name}/enabled', { params: { path: path(v.id) }, body: { enabled: v.enabled } })),
    onSettled: invalidate,
  });
}

export function useSavePluginConfig(id: string) {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (config: Record<string, unknown>) =>
      unwrap(api.PUT('/api/v1/plugins/{author}/{name}/config', { params: { path: path(id) }, body: jsonObject(config) })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: pluginKeys.one(ws, id, 'config') }),
    meta: { quiet: true },
  });
}

export function useUninstallPlugin() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (v: { id: string; deleteData: boolean }) =>
      unwrap(
        api.DELETE('/api/v1/plugins/{author}/{name}', {
          params: { path: path(v.id), query: { delete_data: v.deleteData ? 'true' : 'false' } },
        }),
      ),
    onSettled: invalidate,
  });
}

/** A file for a `file` / `array[file]` config field; answers the value to store. */
export function useUploadConfigFile() {
  return useMutation({
    mutationFn: async (file: File) => {
      const { file_key } = await unwrap(
        api.POST('/api/v1/plugins/config-files', {
          body: { file: '' },
          bodySerializer: () => {
            const form = new FormData();
            form.append('file', file, file.name);
            return form;
          },
        }),
      );
      return { file_key, mimetype: file.type || 'application/octet-stream' };
    },
    meta: { quiet: true },
  });
}

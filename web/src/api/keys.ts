// Query keys. Workspace-scoped data is keyed by the Workspace, so switching never shows
// another Workspace's cache.
import type { ModelKind } from './types';

export const keys = {
  systemInfo: ['system', 'info'] as const,
  account: ['user', 'info'] as const,
  workspaces: ['workspaces'] as const,
  workspace: (ws: string) => ['ws', ws] as const,
  current: (ws: string) => ['ws', ws, 'current'] as const,
  language: (ws: string) => ['ws', ws, 'language'] as const,
  members: (ws: string) => ['ws', ws, 'members'] as const,
  invitations: (ws: string) => ['ws', ws, 'invitations'] as const,
  apiKeys: (ws: string) => ['ws', ws, 'apikeys'] as const,
  requesters: (ws: string) => ['ws', ws, 'requesters'] as const,
  providers: (ws: string) => ['ws', ws, 'providers'] as const,
  models: (ws: string) => ['ws', ws, 'models'] as const,
  modelsOf: (ws: string, kind: ModelKind, provider: string) =>
    ['ws', ws, 'models', kind, provider] as const,
  starred: (ws: string) => ['ws', ws, 'starred'] as const,
  pipelines: (ws: string) => ['ws', ws, 'pipelines'] as const,
  pipeline: (ws: string, uuid: string) => ['ws', ws, 'pipelines', 'one', uuid] as const,
  pipelineMetadata: (ws: string) => ['ws', ws, 'pipelines', 'metadata'] as const,
  extensions: (ws: string, uuid: string) => ['ws', ws, 'pipelines', 'extensions', uuid] as const,
  adapters: (ws: string) => ['ws', ws, 'adapters'] as const,
  bots: (ws: string) => ['ws', ws, 'bots'] as const,
  bot: (ws: string, uuid: string) => ['ws', ws, 'bots', 'one', uuid] as const,
  routeStatus: (ws: string, uuid: string) => ['ws', ws, 'bots', 'status', uuid] as const,
  monitoring: (ws: string) => ['ws', ws, 'monitoring'] as const,
};

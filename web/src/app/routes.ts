// Each page is its own chunk. The same loaders serve the router and the start-up preload,
// which fetches the first page's chunk alongside the main bundle instead of after it.
type Page = () => Promise<{ default: React.ComponentType }>;

export const pages = {
  setup: () => import('../pages/FirstRunPage'),
  login: () => import('../pages/LoginPage'),
  invitation: () => import('../pages/AcceptInvitationPage'),
  models: () => import('../pages/models/ModelsPage'),
  apiKeys: () => import('../pages/apikeys/ApiKeysPage'),
  mcpServers: () => import('../pages/mcp/McpServersPage'),
  workspace: () => import('../pages/workspace/WorkspacePage'),
  account: () => import('../pages/AccountPage'),
  bots: () => import('../pages/bots/BotsPage'),
  bot: () => import('../pages/bots/BotPage'),
  pipelines: () => import('../pages/pipelines/PipelinesPage'),
  pipeline: () => import('../pages/pipelines/PipelinePage'),
  monitoring: () => import('../pages/monitoring/MonitoringPage'),
  execution: () => import('../pages/monitoring/ExecutionPage'),
  notFound: () => import('../pages/NotFoundPage'),
} satisfies Record<string, Page>;

/** The logged-in frame (navigation, header): not needed by the pages before login. */
export const loggedIn = () => import('./RequireSession');

const PUBLIC: Record<string, Page> = { '/setup': pages.setup, '/login': pages.login, '/invitations/accept': pages.invitation };
const PRIVATE: Record<string, Page> = { '/models': pages.models, '/': pages.models, '/api-keys': pages.apiKeys, '/mcp-servers': pages.mcpServers, '/workspace': pages.workspace, '/account': pages.account, '/platform/bots': pages.bots, '/pipelines': pages.pipelines, '/monitoring': pages.monitoring };

const DETAIL: [string, Page][] = [
  ['/platform/bots/', pages.bot],
  ['/pipelines/', pages.pipeline],
  ['/monitoring/executions/', pages.execution],
];

/** Starts loading what `pathname` will show (errors surface when the router loads it). */
export function preload(pathname: string): void {
  const quietly = (load: () => Promise<unknown>) => void load().catch(() => undefined);
  const open = PUBLIC[pathname];
  if (open) return quietly(open);
  if (!localStorage.getItem('langbot_token')) {
    // Not logged in: login, or first run on a new instance (not known until system/info answers).
    quietly(pages.login);
    return quietly(pages.setup);
  }
  quietly(loggedIn);
  const page = PRIVATE[pathname] ?? DETAIL.find(([prefix]) => pathname.startsWith(prefix))?.[1];
  if (page) quietly(page);
}

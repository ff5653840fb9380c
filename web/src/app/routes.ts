// Each page is its own chunk. The same loaders serve the router and the start-up preload,
// which fetches the first page's chunk alongside the main bundle instead of after it.
import { type ComponentType, lazy } from 'react';

type Module = { default: ComponentType };
type Page = () => Promise<Module>;

const loaded = new Map<Page, Module>();

function load(page: Page): Promise<Module> {
  return page().then((module) => {
    loaded.set(page, module);
    return module;
  });
}

/** `React.lazy` that renders at once when the chunk is already in (the start-up preload
 *  awaited it): it hands React a thenable that resolves synchronously, so the first render
 *  shows no Suspense fallback — whose reveal React holds back by up to 300 ms. */
export function lazyPage(page: Page): ComponentType {
  return lazy(() => {
    const module = loaded.get(page);
    return module ? ({ then: (resolve: (m: Module) => void) => resolve(module) } as Promise<Module>) : load(page);
  });
}

export const pages = {
  setup: () => import('../pages/FirstRunPage'),
  login: () => import('../pages/LoginPage'),
  invitation: () => import('../pages/AcceptInvitationPage'),
  models: () => import('../pages/models/ModelsPage'),
  apiKeys: () => import('../pages/apikeys/ApiKeysPage'),
  mcpServers: () => import('../pages/mcp/McpServersPage'),
  plugins: () => import('../pages/plugins/PluginsPage'),
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
export const loggedIn: Page = () => import('./RequireSession').then((m) => ({ default: m.RequireSession }));

const PUBLIC: Record<string, Page> = { '/setup': pages.setup, '/login': pages.login, '/invitations/accept': pages.invitation };
const PRIVATE: Record<string, Page> = { '/models': pages.models, '/': pages.models, '/api-keys': pages.apiKeys, '/mcp-servers': pages.mcpServers, '/plugins': pages.plugins, '/workspace': pages.workspace, '/account': pages.account, '/platform/bots': pages.bots, '/pipelines': pages.pipelines, '/monitoring': pages.monitoring };

const DETAIL: [string, Page][] = [
  ['/platform/bots/', pages.bot],
  ['/pipelines/', pages.pipeline],
  ['/monitoring/executions/', pages.execution],
];

/** The chunks `pathname` will show. */
function firstChunks(pathname: string): Page[] {
  const open = PUBLIC[pathname];
  if (open) return [open];
  // Not logged in: login, or first run on a new instance (not known until system/info answers).
  if (!localStorage.getItem('langbot_token')) return [pages.login, pages.setup];
  const page = PRIVATE[pathname] ?? DETAIL.find(([prefix]) => pathname.startsWith(prefix))?.[1];
  return page ? [loggedIn, page] : [loggedIn];
}

/** Loads what `pathname` will show; resolves when it is in (a failure is left for the router
 *  to show when it loads that chunk again). */
export function preload(pathname: string): Promise<void> {
  return Promise.all(firstChunks(pathname).map((page) => load(page).catch(() => undefined))).then(() => undefined);
}

// Routes; every page (and the logged-in frame) is its own chunk, loaded when first needed.
import { createBrowserRouter, Navigate } from 'react-router';

import { RootGate } from './RootGate';
import { loggedIn, pages } from './routes';

const page = (load: () => Promise<{ default: React.ComponentType }>) => async () => ({ Component: (await load()).default });

export function createRouter() {
  return createBrowserRouter([
    {
      element: <RootGate />,
      HydrateFallback: () => null,
      children: [
        { path: '/setup', lazy: page(pages.setup) },
        { path: '/login', lazy: page(pages.login) },
        { path: '/invitations/accept', lazy: page(pages.invitation) },
        {
          lazy: async () => ({ Component: (await loggedIn()).RequireSession }),
          children: [
            { index: true, element: <Navigate to="/models" replace /> },
            { path: '/models', lazy: page(pages.models) },
            { path: '/api-keys', lazy: page(pages.apiKeys) },
            { path: '/mcp-servers', lazy: page(pages.mcpServers) },
            { path: '/workspace', lazy: page(pages.workspace) },
            { path: '/account', lazy: page(pages.account) },
            { path: '*', lazy: page(pages.notFound) },
          ],
        },
      ],
    },
  ]);
}

// Routes; every page is its own chunk, loaded when first visited.
import { createBrowserRouter, Navigate } from 'react-router';

import { RequireSession } from './RequireSession';
import { RootGate } from './RootGate';

const page = (load: () => Promise<{ default: React.ComponentType }>) => async () => ({ Component: (await load()).default });

export function createRouter() {
  return createBrowserRouter([
    {
      element: <RootGate />,
      HydrateFallback: () => null,
      children: [
        { path: '/setup', lazy: page(() => import('../pages/FirstRunPage')) },
        { path: '/login', lazy: page(() => import('../pages/LoginPage')) },
        { path: '/invitations/accept', lazy: page(() => import('../pages/AcceptInvitationPage')) },
        {
          element: <RequireSession />,
          children: [
            { index: true, element: <Navigate to="/models" replace /> },
            { path: '/models', lazy: page(() => import('../pages/models/ModelsPage')) },
            { path: '/api-keys', lazy: page(() => import('../pages/apikeys/ApiKeysPage')) },
            { path: '/workspace', lazy: page(() => import('../pages/workspace/WorkspacePage')) },
            { path: '/account', lazy: page(() => import('../pages/AccountPage')) },
            { path: '*', lazy: page(() => import('../pages/NotFoundPage')) },
          ],
        },
      ],
    },
  ]);
}

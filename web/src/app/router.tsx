// Routes; every page (and the logged-in frame) is its own chunk, loaded when first needed.
// Declarative routing (BrowserRouter + Routes) rather than a data router: no page uses
// loaders or actions, and the data router's code is about a fifth of the entry.
import { Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';

import { RootGate } from './RootGate';
import { lazyPage, loggedIn, pages } from './routes';

const P = {
  setup: lazyPage(pages.setup),
  login: lazyPage(pages.login),
  invitation: lazyPage(pages.invitation),
  models: lazyPage(pages.models),
  apiKeys: lazyPage(pages.apiKeys),
  mcpServers: lazyPage(pages.mcpServers),
  plugins: lazyPage(pages.plugins),
  workspace: lazyPage(pages.workspace),
  account: lazyPage(pages.account),
  bots: lazyPage(pages.bots),
  bot: lazyPage(pages.bot),
  pipelines: lazyPage(pages.pipelines),
  pipeline: lazyPage(pages.pipeline),
  monitoring: lazyPage(pages.monitoring),
  execution: lazyPage(pages.execution),
  notFound: lazyPage(pages.notFound),
};
const RequireSession = lazyPage(loggedIn);

export function AppRoutes() {
  return (
    <BrowserRouter>
      {/* Navigations run in a transition: the current page stays until the next one's chunk is there. */}
      <Suspense fallback={null}>
        <Routes>
          <Route element={<RootGate />}>
            <Route path="/setup" element={<P.setup />} />
            <Route path="/login" element={<P.login />} />
            <Route path="/invitations/accept" element={<P.invitation />} />
            <Route element={<RequireSession />}>
              <Route index element={<Navigate to="/models" replace />} />
              <Route path="/models" element={<P.models />} />
              <Route path="/api-keys" element={<P.apiKeys />} />
              <Route path="/mcp-servers" element={<P.mcpServers />} />
              <Route path="/plugins" element={<P.plugins />} />
              <Route path="/workspace" element={<P.workspace />} />
              <Route path="/account" element={<P.account />} />
              <Route path="/platform/bots" element={<P.bots />} />
              <Route path="/platform/bots/:uuid" element={<P.bot />} />
              <Route path="/pipelines" element={<P.pipelines />} />
              <Route path="/pipelines/:uuid" element={<P.pipeline />} />
              <Route path="/monitoring" element={<P.monitoring />} />
              <Route path="/monitoring/executions/:source/:id" element={<P.execution />} />
              <Route path="*" element={<P.notFound />} />
            </Route>
          </Route>
        </Routes>
      </Suspense>
    </BrowserRouter>
  );
}

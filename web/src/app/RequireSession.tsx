// The pages behind login: resolves the account, its Workspaces and the selected one (with
// the caller's permissions) before any page renders.
import { Button, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Outlet, useLocation } from 'react-router';

import { api, unwrap } from '../api/client';
import { ApiError } from '../api/errors';
import { keys } from '../api/keys';
import { session } from '../api/session';
import type { Permission } from '../api/types';
import { logout } from '../components/AccountMenu';
import { CenteredCard, FullPageLoader } from '../components/Centered';
import { ErrorAlert } from '../components/ErrorAlert';
import { useSystemInfo } from './queries';
import { currentPath } from './RootGate';
import { SessionContext, type SessionValue } from './session-context';
import { Shell } from './Shell';

export function RequireSession() {
  const location = useLocation();
  if (!session.token()) {
    return <Navigate to={`/login?next=${encodeURIComponent(currentPath(location))}`} replace />;
  }
  return <LoggedIn />;
}

function LoggedIn() {
  const system = useSystemInfo();
  const account = useQuery({
    queryKey: keys.account,
    queryFn: () => unwrap(api.GET('/api/v1/user/info')),
  });
  const workspaces = useQuery({
    queryKey: keys.workspaces,
    queryFn: () => unwrap(api.GET('/api/v1/workspaces', { params: { query: { limit: 500 } } })),
  });
  const [chosen, setChosen] = useState(session.workspace());
  const list = workspaces.data?.workspaces;
  // A remembered Workspace that is no longer ours (removed, another instance) falls back to the first.
  const ws = list?.find((w) => w.uuid === chosen)?.uuid ?? list?.[0]?.uuid ?? null;
  if (ws && ws !== session.workspace()) session.selectWorkspace(ws);

  const current = useQuery({
    queryKey: keys.current(ws ?? ''),
    queryFn: () => unwrap(api.GET('/api/v1/workspaces/current')),
    enabled: ws !== null,
  });

  const switchWorkspace = useCallback((uuid: string) => {
    session.selectWorkspace(uuid);
    setChosen(uuid);
  }, []);

  const value = useMemo<SessionValue | null>(() => {
    if (!system.data || !account.data || !list || !ws || !current.data) return null;
    const permissions = new Set<Permission>(current.data.permissions);
    return {
      system: system.data,
      account: account.data,
      workspaces: list,
      ws,
      current: current.data,
      can: (p) => permissions.has(p),
      switchWorkspace,
    };
  }, [system.data, account.data, list, ws, current.data, switchWorkspace]);

  const failed = [account, workspaces, current].find((q) => q.isError);
  if (failed) {
    // 401s already sent us to login (the client ended the session).
    if (failed.error instanceof ApiError && failed.error.status === 401) return <FullPageLoader />;
    return (
      <CenteredCard>
        <ErrorAlert error={failed.error} onRetry={() => void failed.refetch()} />
      </CenteredCard>
    );
  }
  if (list?.length === 0 && account.data) return <NoWorkspace email={account.data.email} />;
  if (!value) return <FullPageLoader />;
  return (
    <SessionContext.Provider value={value}>
      <Shell>
        <Outlet />
      </Shell>
    </SessionContext.Provider>
  );
}

/** Logged in, but a member of no Workspace (removed from the last one): say so, offer logout. */
function NoWorkspace({ email }: { email: string }) {
  const { t } = useTranslation();
  return (
    <CenteredCard>
      <Stack component="main" data-testid="no-workspace">
        <Title order={1} size="h3">
          {t('workspace.noneTitle')}
        </Title>
        <Text size="sm">{t('workspace.noneBody', { email })}</Text>
        <Button variant="light" onClick={() => void logout()}>
          {t('account.logout')}
        </Button>
      </Stack>
    </CenteredCard>
  );
}

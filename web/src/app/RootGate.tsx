// Every page passes here: it knows whether the instance has its first account yet, and it
// returns to login (remembering the page) when the session ends or expires.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';

import { session } from '../api/session';
import { CenteredCard, FullPageLoader } from '../components/Centered';
import { ErrorAlert } from '../components/ErrorAlert';
import { useSystemInfo } from './queries';

export function currentPath(location: { pathname: string; search: string; hash: string }): string {
  return location.pathname + location.search + location.hash;
}

export function RootGate() {
  const info = useSystemInfo();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  useEffect(
    () =>
      session.onEnd((reason) => {
        queryClient.clear();
        if (reason === 'expired') {
          const next = currentPath(globalThis.location);
          void navigate(`/login?expired=1&next=${encodeURIComponent(next)}`, { replace: true });
        } else {
          void navigate('/login', { replace: true });
        }
      }),
    [navigate, queryClient],
  );

  if (info.isPending) return <FullPageLoader />;
  if (info.isError) {
    return (
      <CenteredCard>
        <ErrorAlert error={info.error} onRetry={() => void info.refetch()} />
      </CenteredCard>
    );
  }
  const onSetup = location.pathname === '/setup';
  if (!info.data.initialized && !onSetup) return <Navigate to="/setup" replace />;
  if (info.data.initialized && onSetup) return <Navigate to="/login" replace />;
  return <Outlet />;
}

import { createContext, useContext } from 'react';

import type { AccountInfo, CurrentWorkspace, Permission, SystemInfo, Workspace } from '../api/types';

export interface SessionValue {
  system: SystemInfo;
  account: AccountInfo;
  workspaces: Workspace[];
  /** The selected Workspace's uuid (also sent as `X-Workspace-Id`). */
  ws: string;
  current: CurrentWorkspace;
  can: (permission: Permission) => boolean;
  switchWorkspace: (uuid: string) => void;
}

export const SessionContext = createContext<SessionValue | null>(null);

/** The logged-in session; only inside the pages behind login. */
export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside a logged-in page');
  return value;
}

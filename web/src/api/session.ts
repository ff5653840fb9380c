// The browser's session: the `lbs_…` token and the selected Workspace, kept in localStorage
// so a reload stays logged in. Listeners hear when the session ends (logout or expiry).

const TOKEN_KEY = 'langbot_token';
const WORKSPACE_KEY = 'langbot_workspace';

type Listener = (reason: 'logout' | 'expired') => void;
const listeners = new Set<Listener>();

export const session = {
  token(): string | null {
    return localStorage.getItem(TOKEN_KEY);
  },
  start(token: string): void {
    localStorage.setItem(TOKEN_KEY, token);
  },
  workspace(): string | null {
    return localStorage.getItem(WORKSPACE_KEY);
  },
  selectWorkspace(uuid: string | null): void {
    if (uuid) localStorage.setItem(WORKSPACE_KEY, uuid);
    else localStorage.removeItem(WORKSPACE_KEY);
  },
  /** Forgets the token (not the Workspace choice, which a next login may keep). */
  end(reason: 'logout' | 'expired'): void {
    if (localStorage.getItem(TOKEN_KEY) === null) return;
    localStorage.removeItem(TOKEN_KEY);
    for (const listener of listeners) listener(reason);
  },
  onEnd(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

// Queries every page may need (the session's own).
import { useQuery } from '@tanstack/react-query';

import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';

export function useSystemInfo() {
  return useQuery({
    queryKey: keys.systemInfo,
    queryFn: () => unwrap(api.GET('/api/v1/system/info')),
    staleTime: 60_000,
  });
}

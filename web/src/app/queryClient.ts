import { MutationCache, QueryClient } from '@tanstack/react-query';

import { ApiError } from '../api/errors';
import { notifyError } from '../components/notify';

/** Retries only what may succeed next time (network, 5xx, 429); never a 4xx answer. */
function shouldRetry(failures: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429) {
    return false;
  }
  return failures < 2;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, staleTime: 15_000, refetchOnWindowFocus: true },
      mutations: { retry: false },
    },
    // A mutation that shows its error itself sets `meta: { quiet: true }`; every other failed
    // mutation becomes a notification, so nothing fails silently.
    mutationCache: new MutationCache({
      onError: (error, _vars, _ctx, mutation) => {
        if (mutation.meta?.quiet !== true) notifyError(error);
      },
    }),
  });
}

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: { quiet?: boolean };
  }
}

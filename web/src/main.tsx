import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './app/global.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { api, unwrap } from './api/client';
import { keys } from './api/keys';
import { App } from './app/App';
import { createQueryClient } from './app/queryClient';
import { preload } from './app/routes';
import { initI18n } from './i18n';

const root = document.getElementById('root');
if (!root) throw new Error('no #root element');

// Everything the first page needs starts at once: the instance facts, the page's chunk, and
// the UI strings; React renders when the chunk and the strings are there, so the first render
// is the page itself, not a Suspense fallback.
const queryClient = createQueryClient();
// A failure is shown by the page that reads it (RootGate), so it is not reported here.
queryClient.query({ queryKey: keys.systemInfo, queryFn: () => unwrap(api.GET('/api/v1/system/info')) }).catch(() => undefined);
const firstPage = preload(location.pathname);

void Promise.all([initI18n(), firstPage]).then(() => {
  createRoot(root).render(
    <StrictMode>
      <App queryClient={queryClient} />
    </StrictMode>,
  );
});

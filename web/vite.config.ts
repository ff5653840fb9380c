/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';

// The binary serves web/dist itself (backend/src/http/web_ui.rs): it sends the .br/.gz
// siblings written here, so nothing is compressed per request.
export default defineConfig({
  plugins: [
    react(),
    compression({
      algorithms: ['brotliCompress', 'gzip'],
      include: /\.(js|css|html|svg|json)$/,
      threshold: 0,
    }),
  ],
  build: {
    target: 'es2022',
    sourcemap: false,
    // dist/.vite/manifest.json: the chunk graph scripts/bundle-report.mjs measures.
    manifest: true,
    // Report sizes without the gzip pass (the compression plugin writes real .gz files).
    reportCompressedSize: false,
    // Brand icons stay files (fetched when shown, cached for good) instead of base64 in the JS.
    assetsInlineLimit: 0,
    // A few larger chunks instead of ~150 tiny shared ones: a cold load over HTTP/1.1 fetches
    // six files at a time, so the first page waited on a dozen round trips. `vendor` is what
    // the entry needs, `ui` the Mantine parts four or more pages share, `shared` our own.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'vendor', test: /node_modules/, tags: ['$initial'], priority: 4 },
            { name: 'ui', test: /node_modules[\\/](@mantine[\\/](core|hooks|form)|@floating-ui|react-remove-scroll|react-textarea-autosize|lucide-react|use-)/, minShareCount: 4, priority: 3 },
            { name: 'shared', test: /[\\/]src[\\/]/, minShareCount: 2, priority: 2 },
          ],
        },
      },
    },
  },
  server: {
    // `npm run dev` talks to a local `langbot serve`.
    proxy: {
      '/api': 'http://127.0.0.1:5300',
      '/mcp': 'http://127.0.0.1:5300',
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    css: false,
    // jsdom with user-event typing is slow on a busy 2-core machine; a form test can take 6 s.
    testTimeout: 15_000,
  },
});

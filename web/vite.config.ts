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
  },
});

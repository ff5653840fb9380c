import { defineConfig } from 'vitest/config';

// Browser tests: one real server and one Chromium, so files run one after another.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    environment: 'node',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['e2e/global-setup.ts'],
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits 1 s by default: shorter than one refresh of some pages and less than a
    // loaded CI machine may take to show a change. A poll ends as soon as its assertion holds,
    // so the longer time only makes a real failure slower to report.
    expect: { poll: { timeout: 5_000 } },
    pool: 'forks',
    // End-to-end files start real processes; two cores are shared by everything.
    maxWorkers: 2,
  },
});

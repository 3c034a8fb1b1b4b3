import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['keiyaku-source'] },
  ssr: { resolve: { conditions: ['keiyaku-source'], externalConditions: ['keiyaku-source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/fail-on-console.ts'],
    globalSetup: ['test/setup/kafka.ts', 'test/setup/postgres.ts', 'test/setup/mysql.ts'],
    // vitest's default is one worker fewer than the cores: a single worker, one file after another, on
    // the 2 cores CI has. Most files wait on brokers, databases and processes they start (a sample of six
    // used a third of one core), so two files run side by side there (docs/development.md, "Test time").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['keiyaku-source'] },
  ssr: { resolve: { conditions: ['keiyaku-source'], externalConditions: ['keiyaku-source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/fail-on-console.ts'],
    globalSetup: ['test/setup/kafka.ts', 'test/setup/postgres.ts', 'test/setup/mysql.ts'],
    // vitest's default (one worker fewer than the cores: one file after another on 2 cores) is kept: two
    // files side by side timed out under CI's load (docs/development.md, "Test time").
    testTimeout: 60_000,
    hookTimeout: 120_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['keiyaku-source'] },
  ssr: { resolve: { conditions: ['keiyaku-source'], externalConditions: ['keiyaku-source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/fail-on-console.ts'],
    globalSetup: ['test/setup/kafka.ts', 'test/setup/postgres.ts', 'test/setup/mysql.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});

/**
 * vitest global setup: a real Kafka broker for the tests that need one.
 * - KAFKA_BROKERS set: use that broker.
 * - Else, when java and mvn are present: start one with scripts/kafka (stopped afterwards).
 * - Else: Kafka tests skip with the printed reason — and under CI that is a failure instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    kafkaSkipReason: string;
  }
}

const root = join(import.meta.dirname, '..', '..');

function has(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

export default function setup(project: TestProject): (() => void) | undefined {
  const given = process.env['KAFKA_BROKERS'];
  if (given) {
    project.provide('kafkaBrokers', given);
    project.provide('kafkaSkipReason', '');
    return undefined;
  }
  const missing = !has('java', ['-version']) ? 'java' : !has('mvn', ['-v']) ? 'mvn' : undefined;
  if (missing !== undefined) {
    const reason = `Kafka tests skipped: ${missing} is not installed and KAFKA_BROKERS is not set`;
    if (process.env['CI']) throw new Error(`${reason}; under CI a real broker is required`);
    process.stdout.write(`\n${reason}\n`);
    project.provide('kafkaBrokers', '');
    project.provide('kafkaSkipReason', reason);
    return undefined;
  }
  const env = { ...process.env, KAFKA_PORT: process.env['KAFKA_PORT'] ?? '19092' };
  const brokers = execFileSync(join(root, 'scripts', 'kafka'), ['start'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim()
    .split('\n')
    .pop()!;
  project.provide('kafkaBrokers', brokers);
  project.provide('kafkaSkipReason', '');
  return () => {
    execFileSync(join(root, 'scripts', 'kafka'), ['stop'], { env, stdio: 'ignore' });
  };
}

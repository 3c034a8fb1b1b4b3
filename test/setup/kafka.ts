/**
 * vitest global setup: a real Kafka broker for the tests that need one.
 * - KAFKA_BROKERS set: use that broker.
 * - Else, when java and mvn are present: start one with scripts/kafka (stopped afterwards), on
 *   KAFKA_PORT when set, else on free ports (broker, controller and SASL listener: three in a row),
 *   so two runs on one machine never collide.
 * - Else: Kafka tests skip with the printed reason — and under CI that is a failure instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from './ports.js';

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

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
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
  const givenPort = process.env['KAFKA_PORT'] || undefined;
  const script = join(root, 'scripts', 'kafka');
  // A chosen port can be taken between the check and the broker's start (another run): draw again.
  for (let attempt = 1; ; attempt++) {
    const port = givenPort ?? String(await freePort(3));
    const env = { ...process.env, KAFKA_PORT: port };
    const started = spawnSync(script, ['start'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (started.status !== 0) {
      if (givenPort === undefined && attempt < 3 && /port \d+ is taken/.test(started.stderr)) continue;
      throw new Error(`scripts/kafka start failed on port ${port}: ${started.stderr.trim()}`);
    }
    if (started.stderr) process.stderr.write(started.stderr); // the classpath resolution's notice, the first time
    project.provide('kafkaBrokers', started.stdout.trim().split('\n').pop()!);
    project.provide('kafkaSkipReason', '');
    return () => {
      execFileSync(script, ['stop'], { env, stdio: 'ignore' });
    };
  }
}

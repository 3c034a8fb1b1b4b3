// The fuzz harness with a small count on every run (`npm run fuzz` runs 1,000,000 inputs):
// every decoder that reads bytes from the network or a store ends in a value or a typed error.
import { describe, expect, it } from 'vitest';
import { fuzz } from './harness.js';
import { targets } from './targets.js';

describe('fuzz', () => {
  it('covers the decoders it is meant to', () => {
    const names = targets.map((t) => t.name);
    for (const expected of [
      'generated codec BookBorrowed.decode',
      'generated headers codec EventHeaders',
      'memory envelope (headers + payload)',
      'kafka record and envelope',
      'structured CloudEvent (JSON event format) and envelope',
      'iggy user headers, record and envelope',
      'iggy frame: frameSize + decodeFrame + payloadOf',
      'iggy login reply',
      'iggy poll messages reply',
      'iggy sync consumer group reply',
      'sqlite dead-letter record reader',
    ])
      expect(names).toContain(expected);
  });

  it('20,000 random and mutated inputs: no crash, hang, allocation or prototype change', () => {
    const seed = Number(process.env['FUZZ_SEED'] ?? Date.now() % 1_000_000);
    const report = fuzz({ inputs: 20_000, seed, hangMs: 2_000 });
    expect(report.inputs).toBeGreaterThanOrEqual(20_000);
    expect({ seed, findings: report.findings }).toEqual({ seed, findings: [] });
    expect(report.crashes + report.hangs).toBe(0);
  }, 120_000);
});

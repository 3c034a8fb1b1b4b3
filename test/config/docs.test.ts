// docs/configuration.md lists every environment variable and every librdkafka key the code knows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ENVIRONMENT_VARIABLES,
  KAFKA_PROPERTIES,
  OTHER_ENVIRONMENT_VARIABLES,
  UNSUPPORTED_KAFKA_PROPERTIES,
} from '@keiyaku/runtime/config';
import { expect, it } from 'vitest';
import { repoRoot } from '../helpers.js';

const doc = readFileSync(join(repoRoot, 'docs', 'configuration.md'), 'utf8');
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A table row whose first cells are these code spans (cells may be padded). */
const row = (...cells: string[]): RegExp => new RegExp(`^\\|${cells.map((c) => `\\s*\`${escapeRegExp(c)}\`\\s*\\|`).join('')}`, 'm');

it('documents every environment variable, with what it sets', () => {
  const missing = ENVIRONMENT_VARIABLES.filter((v) => !row(v.name, v.path).test(doc)).map((v) => v.name);
  expect(missing).toEqual([]);
});

it('documents every KEIYAKU_* variable that other parts of keiyaku read (configuration accepts exactly those)', () => {
  expect(OTHER_ENVIRONMENT_VARIABLES.filter((v) => !row(v.name).test(doc)).map((v) => v.name)).toEqual([]);
});

it('documents every supported and every refused librdkafka key', () => {
  const keys = [...Object.keys(KAFKA_PROPERTIES), ...Object.keys(UNSUPPORTED_KAFKA_PROPERTIES)];
  expect(keys.filter((k) => !row(k).test(doc))).toEqual([]);
});

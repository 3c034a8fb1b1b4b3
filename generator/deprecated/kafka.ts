/**
 * @deprecated `keiyaku/kafka` is now `@keiyaku/kafka` (install `@keiyaku/kafka`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/kafka', '@keiyaku/kafka');

export * from '@keiyaku/kafka';

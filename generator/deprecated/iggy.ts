/**
 * @deprecated `keiyaku/iggy` is now `@keiyaku/iggy` (install `@keiyaku/iggy`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/iggy', '@keiyaku/iggy');

export * from '@keiyaku/iggy';

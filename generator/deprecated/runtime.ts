/**
 * @deprecated `keiyaku/runtime` is now `@keiyaku/runtime` (install `@keiyaku/runtime`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/runtime', '@keiyaku/runtime');

export * from '@keiyaku/runtime';

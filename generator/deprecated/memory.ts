/**
 * @deprecated `keiyaku/memory` is now `@keiyaku/runtime/memory` (install `@keiyaku/runtime`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/memory', '@keiyaku/runtime/memory');

export * from '@keiyaku/runtime/memory';

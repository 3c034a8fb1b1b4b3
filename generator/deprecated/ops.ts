/**
 * @deprecated `keiyaku/ops` is now `@keiyaku/runtime/ops` (install `@keiyaku/runtime`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/ops', '@keiyaku/runtime/ops');

export * from '@keiyaku/runtime/ops';

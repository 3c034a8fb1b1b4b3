/**
 * @deprecated `keiyaku/config` is now `@keiyaku/runtime/config` (install `@keiyaku/runtime`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/config', '@keiyaku/runtime/config');

export * from '@keiyaku/runtime/config';

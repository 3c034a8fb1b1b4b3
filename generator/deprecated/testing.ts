/**
 * @deprecated `keiyaku/testing` is now `@keiyaku/runtime/testing` (install `@keiyaku/runtime`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/testing', '@keiyaku/runtime/testing');

export * from '@keiyaku/runtime/testing';

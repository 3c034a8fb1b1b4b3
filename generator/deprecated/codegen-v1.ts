/**
 * @deprecated `keiyaku/codegen-v1` is now `@keiyaku/runtime/codegen-v1` (install `@keiyaku/runtime`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/codegen-v1', '@keiyaku/runtime/codegen-v1');

export * from '@keiyaku/runtime/codegen-v1';

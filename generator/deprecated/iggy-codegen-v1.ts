/**
 * @deprecated `keiyaku/iggy-codegen-v1` is now `@keiyaku/iggy/codegen-v1` (install `@keiyaku/iggy`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/iggy-codegen-v1', '@keiyaku/iggy/codegen-v1');

export * from '@keiyaku/iggy/codegen-v1';

/**
 * @deprecated `keiyaku/sqlite` is now `@keiyaku/sqlite` (install `@keiyaku/sqlite`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/sqlite', '@keiyaku/sqlite');

export * from '@keiyaku/sqlite';

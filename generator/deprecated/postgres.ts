/**
 * @deprecated `keiyaku/postgres` is now `@keiyaku/postgres` (install `@keiyaku/postgres`); this re-export warns once and
 * goes away in keiyaku 1.0. Generated code: run `keiyaku generate` again.
 */
import { warnMoved } from './warn.js';

warnMoved('keiyaku/postgres', '@keiyaku/postgres');

export * from '@keiyaku/postgres';

/**
 * The schema check, split by job under ./schema/ (resolution, set algebra, recording, severity,
 * wording, one comparer per keyword family); this module keeps the import path others use.
 */

export * from './schema/index.js';

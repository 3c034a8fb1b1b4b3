/**
 * The runtime moved out of the `keiyaku` package into `@keiyaku/runtime` and one package per
 * transport or store. The old import paths (`keiyaku/codegen-v1`, `keiyaku/kafka`, …) still work
 * through re-exports that emit one Node deprecation warning each (code `KEIYAKU_MOVED`; silence
 * with `--no-deprecation`), until keiyaku 1.0.
 */
const warned = new Set<string>();

export function warnMoved(old: string, replacement: string): void {
  if (warned.has(old)) return;
  warned.add(old);
  const pkg = replacement.split('/').slice(0, 2).join('/');
  process.emitWarning(`${old} is deprecated: import ${replacement} instead (npm i ${pkg}); generated code: run keiyaku generate`, {
    type: 'DeprecationWarning',
    code: 'KEIYAKU_MOVED',
  });
}

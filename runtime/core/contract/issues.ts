/** The validate functions generated code carries, and their errors as located validation issues. */
import type { ValidationIssue } from './errors.js';

/** An ajv standalone validate function, as emitted into `generated/validators.ts`. */
export interface StandaloneValidator {
  (data: unknown): boolean;
  errors?: readonly StandaloneValidatorError[] | null;
}
export interface StandaloneValidatorError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message?: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

/** @internal A JSON pointer as a JSON path (`/items/2` → `$.items[2]`). */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '$';
  let path = '$';
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^(0|[1-9]\d*)$/.test(token)) path += `[${token}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(token)) path += `.${token}`;
    else path += `[${JSON.stringify(token)}]`;
  }
  return path;
}

/** @internal A property name as a JSON pointer token. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** @internal The errors of a failed validate function as issues (one generic issue when it gave none). */
export function toIssues(errors: readonly StandaloneValidatorError[] | null | undefined): ValidationIssue[] {
  if (!errors || errors.length === 0) return [{ pointer: '', path: '$', keyword: 'schema', message: 'rejected by its schema' }];
  return errors.map((error) => {
    let pointer = error.instancePath;
    // ajv reports a missing or forbidden property at its parent; point at the property itself.
    const missing = error.params?.['missingProperty'] ?? error.params?.['additionalProperty'];
    if (typeof missing === 'string') pointer = `${pointer}/${escapePointerToken(missing)}`;
    return { pointer, path: pointerToPath(pointer), keyword: error.keyword, message: error.message ?? `fails ${error.keyword}` };
  });
}

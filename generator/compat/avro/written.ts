/**
 * From a finding's pointer into an Avro schema (fields and union branches by name:
 * `/fields/author/type/library.Author/fields/born`) to the JSON pointer of the node as written
 * (`/fields/1/type/1/fields/0`), so that findings are located in the contract or `.avsc` file. It
 * goes as deep as the written schema does: a field or branch the new schema lacks, or a named type
 * referenced by name, is located at the nearest written node.
 */
import { PRIMITIVES } from './schema.js';

type Json = { readonly [key: string]: unknown };

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What names a written union branch: a primitive or unnamed type's name, or a named type's (or reference's) name. */
function branchName(branch: unknown): string | undefined {
  if (typeof branch === 'string') return branch;
  if (!isObject(branch)) return undefined;
  if (
    typeof branch.type === 'string' &&
    ((PRIMITIVES as readonly string[]).includes(branch.type) || ['array', 'map'].includes(branch.type))
  )
    return branch.type;
  if (typeof branch.name !== 'string') return typeof branch.type === 'string' ? branch.type : undefined;
  return typeof branch.namespace === 'string' && !branch.name.includes('.') ? `${branch.namespace}.${branch.name}` : branch.name;
}

/** Whether a branch written as `written` is the one a finding names `key` (a full name, or the name as written). */
const sameBranch = (written: string | undefined, key: string): boolean =>
  written !== undefined && (written === key || key.endsWith(`.${written}`));

export function writtenPointer(schema: unknown, pointer: string): string {
  const tokens = pointer === '' ? [] : pointer.slice(1).split('/');
  let node: unknown = schema;
  let out = '';
  let field = false;
  for (let i = 0; i < tokens.length; i++) {
    // A schema written as `{ "type": { … } }` is the schema inside.
    while (!field && isObject(node) && (isObject(node.type) || Array.isArray(node.type))) {
      node = node.type;
      out += '/type';
    }
    const token = tokens[i]!;
    if (Array.isArray(node)) {
      const index = node.findIndex((branch) => sameBranch(branchName(branch), token));
      if (index < 0) break;
      node = node[index];
      out += `/${index}`;
      field = false;
    } else if (token === 'fields' && isObject(node) && Array.isArray(node.fields)) {
      const index = node.fields.findIndex((f: unknown) => isObject(f) && f.name === tokens[i + 1]);
      if (index < 0) break;
      node = node.fields[index];
      out += `/fields/${index}`;
      field = true;
      i++;
    } else if (isObject(node) && Object.hasOwn(node, token)) {
      node = node[token];
      out += `/${token}`;
      field = false;
    } else break;
  }
  return out;
}

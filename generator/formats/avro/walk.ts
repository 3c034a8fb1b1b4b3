/**
 * The named types an Avro schema (its JSON, as the contract holds it) defines and references,
 * each with its full name (Avro's namespace rules) and where it sits: for resolving names across
 * the contract's schemas and locating avsc's errors.
 */
type Tokens = readonly (string | number)[];

const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);
const NAMED = new Set(['record', 'error', 'enum', 'fixed']);

export interface NameSite {
  readonly fullname: string;
  readonly tokens: Tokens;
}

export interface SchemaSites {
  /** Named types defined, in document order (a name defined twice appears twice). */
  readonly defined: NameSite[];
  /** Type names referenced (not primitives), in document order. */
  readonly referenced: NameSite[];
  /** Every object node with its tokens (for locating errors about a node's attributes). */
  readonly nodes: { readonly node: Record<string, unknown>; readonly tokens: Tokens }[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function qualify(name: string, namespace: string): string {
  return name.includes('.') || namespace === '' ? name : `${namespace}.${name}`;
}

/** The definitions, references and nodes of `schema`, its tokens `at` in the resolved document. */
export function schemaSites(schema: unknown, at: Tokens): SchemaSites {
  const sites: SchemaSites = { defined: [], referenced: [], nodes: [] };
  const visit = (node: unknown, tokens: Tokens, namespace: string): void => {
    if (typeof node === 'string') {
      if (!PRIMITIVES.has(node)) sites.referenced.push({ fullname: qualify(node, namespace), tokens });
      return;
    }
    if (Array.isArray(node)) {
      for (const [i, branch] of node.entries()) visit(branch, [...tokens, i], namespace);
      return;
    }
    if (!isObject(node)) return;
    sites.nodes.push({ node, tokens });
    const type = node['type'];
    let inner = namespace;
    if (typeof type === 'string' && NAMED.has(type) && typeof node['name'] === 'string') {
      const name = node['name'];
      const own = typeof node['namespace'] === 'string' ? node['namespace'] : namespace;
      const fullname = qualify(name, own);
      sites.defined.push({ fullname, tokens });
      inner = fullname.includes('.') ? fullname.slice(0, fullname.lastIndexOf('.')) : '';
    }
    if (typeof type !== 'string' || !(PRIMITIVES.has(type) || NAMED.has(type) || type === 'array' || type === 'map')) {
      visit(type, [...tokens, 'type'], namespace);
    }
    if (Array.isArray(node['fields'])) {
      node['fields'].forEach((field, i) => {
        if (isObject(field)) {
          sites.nodes.push({ node: field, tokens: [...tokens, 'fields', i] });
          visit(field['type'], [...tokens, 'fields', i, 'type'], inner);
        }
      });
    }
    if (type === 'array') visit(node['items'], [...tokens, 'items'], namespace);
    if (type === 'map') visit(node['values'], [...tokens, 'values'], namespace);
  };
  visit(schema, at, '');
  return sites;
}

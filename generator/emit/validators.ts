/**
 * Validators compiled at `generate` time, written by keiyaku itself from the schema model:
 * one plain JavaScript function per named schema (shared definitions compiled once and
 * called, never inlined into every message), named after the schema (`v_BookId`), with
 * every constant it needs declared next to it. Adding a message adds its own functions
 * and changes no other line.
 *
 * Validation reports every error of a value (bounded by `MAX_ERRORS` in
 * `@keiyaku/runtime/codegen-v1`) in the shape ajv uses (`instancePath`, `keyword`, `params`,
 * `message`); the success path allocates nothing but the error list.
 *
 * Supported keywords are those the model keeps (see generator/model/schema-object.ts):
 * draft 2020-12 validation and applicators, `unevaluatedProperties`/`unevaluatedItems`
 * included; `format` for the formats of ajv-formats, checked at run time by
 * `@keiyaku/runtime`'s own implementation of them (docs/formats.md).
 *
 * @see https://json-schema.org/draft/2020-12/json-schema-validation
 */
import { createRequire } from 'node:module';
import type { Diagnostic } from '../diagnostics.js';
import { type ContractModel, refName, SCHEMA_REF_PREFIX, type SchemaNode } from '../model/contract-model.js';
import { type BracketCounts, BracketIndenter, braces } from './format.js';

const require = createRequire(import.meta.url);
type FormatDefinition = RegExp | ((s: string) => boolean) | boolean | { type?: string; validate: RegExp | ((s: unknown) => boolean) };
const FORMATS = (require('ajv-formats/dist/formats') as { fullFormats: Record<string, FormatDefinition> }).fullFormats;

/** Rewrites `#/schemas/<Name>` into `#/$defs/<Name>` (for tools that compile the model's schemas with ajv). */
export function toAjvSchema(node: SchemaNode): unknown {
  return JSON.parse(
    JSON.stringify(node, (key, value) =>
      key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF_PREFIX)
        ? `#/$defs/${value.slice(SCHEMA_REF_PREFIX.length)}`
        : value,
    ),
  );
}

export interface ValidatorModule {
  /** JavaScript (ESM) module text; imports `validatorRuntime` from `@keiyaku/runtime/codegen-v1`. */
  readonly code: string;
  /** Export name per schema name. */
  readonly exports: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
}

export function validatorExportName(schemaName: string): string {
  return `validate${schemaName}`;
}

function functionName(schemaName: string, tracking = false): string {
  return `v_${schemaName}${tracking ? '$t' : ''}`;
}

type Schema = Record<string, unknown>;

/** A JSON pointer built at run time, only when an error is reported: literal pieces and JS expressions. */
type Path = readonly ({ readonly text: string } | { readonly expr: string })[];

/** {@link pathCode} of each path seen: a node's keywords each ask for it. Paths are never changed. */
const pathCodes = new WeakMap<Path, string>();

function pathCode(path: Path): string {
  let code = pathCodes.get(path);
  if (code === undefined) {
    code = writePathCode(path);
    pathCodes.set(path, code);
  }
  return code;
}

function writePathCode(path: Path): string {
  const parts: string[] = [];
  let literal = '';
  for (const piece of path) {
    if ('text' in piece) literal += piece.text;
    else {
      if (literal !== '') parts.push(JSON.stringify(literal));
      literal = '';
      parts.push(piece.expr);
    }
  }
  if (literal !== '' || parts.length === 0) parts.push(JSON.stringify(literal));
  if (parts.length > 1 && !parts[0]!.startsWith('"')) parts.unshift('""');
  return parts.join('+');
}

function child(path: Path, key: string): Path {
  return [...path, { text: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` }];
}

function childExpr(path: Path, expr: string, escaped: boolean): Path {
  return [...path, { text: '/' }, { expr: escaped ? `$esc(${expr})` : expr }];
}

/**
 * `if(cond){body}`, written `if(cond&&inner)statement` when the body is one `if` without
 * braces or else (most property checks), which keeps validators small.
 */
function guarded(condition: string, body: string): string {
  if (body === '') return '';
  const single = singleIf(body);
  if (single !== undefined) return `if(${condition}&&${parenthesize(single.condition)})${single.statement}`;
  // `if(a)if(b)x;else y;`: the else belongs to the inner if, as meant.
  if (ifElseChain(body)) return `if(${condition})${body}`;
  return `if(${condition}){${body}}`;
}

/** `if(c)s;else if(c2)s2;…` without blocks: one statement. */
function ifElseChain(code: string): boolean {
  const parts = code.split(';else ');
  return parts.length > 1 && parts.every((part, i) => singleIf(i === parts.length - 1 ? part : `${part};`) !== undefined);
}

/** `if(c)s;` with one statement and no block or else: its parts; otherwise undefined. */
function singleIf(code: string): { condition: string; statement: string } | undefined {
  if (!code.startsWith('if(')) return undefined;
  let depth = 0;
  let quote: string | undefined;
  let close = -1;
  for (let i = 2; i < code.length; i++) {
    const ch = code[i]!;
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close < 0) return undefined;
  const statement = code.slice(close + 1);
  if (statement.startsWith('{') || !statement.endsWith(';')) return undefined;
  // Outside string literals: no brace, and no `;` but the last.
  const bare = statement.includes('"') ? statement.replace(/"(?:[^"\\]|\\.)*"/g, '') : statement;
  if (bare.includes('{') || bare.includes('}') || bare.indexOf(';') !== bare.length - 1) return undefined;
  return { condition: code.slice(3, close), statement };
}

/** Whether the char code is a regular-expression word character (`\\w`). */
function isWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/** Where `word` (a variable name) stands alone in `code`, as `\\b<word>\\b` would match it. */
function wordsAt(code: string, word: string): number[] {
  const at: number[] = [];
  let i = code.indexOf(word);
  while (i !== -1) {
    const alone = (i === 0 || !isWordChar(code.charCodeAt(i - 1))) && !isWordChar(code.charCodeAt(i + word.length));
    if (alone) at.push(i);
    i = code.indexOf(word, alone ? i + word.length : i + 1);
  }
  return at;
}

/** `code` with every standalone `word` replaced by `replacement`. */
function replaceWord(code: string, word: string, replacement: string): string {
  let out = '';
  let from = 0;
  for (const i of wordsAt(code, word)) {
    out += code.slice(from, i) + replacement;
    from = i + word.length;
  }
  return out + code.slice(from);
}

function parenthesize(condition: string): string {
  return condition.includes('||') ? `(${condition})` : condition;
}

/** Property names that plain objects inherit: their presence must be an own-property test. */
function inherited(key: string): boolean {
  return key in Object.prototype || key === '__proto__';
}

function propertyAccess(data: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${data}.${key}` : `${data}[${JSON.stringify(key)}]`;
}

const TYPE_FAILS: Record<string, (d: string) => string> = {
  string: (d) => `typeof ${d}!=="string"`,
  number: (d) => `typeof ${d}!=="number"||!isFinite(${d})`,
  integer: (d) => `!Number.isInteger(${d})`,
  boolean: (d) => `typeof ${d}!=="boolean"`,
  null: (d) => `${d}!==null`,
  object: (d) => `!$o(${d})`,
  array: (d) => `!Array.isArray(${d})`,
};

const TYPE_CHECK: Record<string, (d: string) => string> = {
  string: (d) => `typeof ${d}==="string"`,
  number: (d) => `typeof ${d}==="number"&&isFinite(${d})`,
  integer: (d) => `Number.isInteger(${d})`,
  boolean: (d) => `typeof ${d}==="boolean"`,
  null: (d) => `${d}===null`,
  object: (d) => `$o(${d})`,
  array: (d) => `Array.isArray(${d})`,
};

const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const OBJECT_KEYWORDS = [
  'required',
  'properties',
  'patternProperties',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'dependentRequired',
  'dependentSchemas',
  'propertyNames',
  'unevaluatedProperties',
];
const ARRAY_KEYWORDS = ['prefixItems', 'items', 'contains', 'minItems', 'maxItems', 'uniqueItems', 'unevaluatedItems'];

function formatType(format: string): 'string' | 'number' | undefined {
  const def = FORMATS[format];
  if (def === undefined || def === true || def === false) return undefined;
  if (typeof def === 'object' && !(def instanceof RegExp) && def.type === 'number') return 'number';
  return 'string';
}

/** Trackers of evaluated properties/items for `unevaluated*` (names of JS variables). */
interface Tracking {
  readonly props?: string | undefined;
  readonly items?: string | undefined;
}

/** Compiles one named schema into one function. All state is per function, so names are stable. */
class FunctionWriter {
  readonly #owner: ValidatorWriter;
  readonly #prefix: string;
  readonly constants: string[] = [];
  #vars = 0;
  #consts = 0;

  constructor(owner: ValidatorWriter, prefix: string) {
    this.#owner = owner;
    this.#prefix = prefix;
  }

  variable(base: string): string {
    return `${base}${++this.#vars}`;
  }

  constant(code: string): string {
    const name = `${this.#prefix}$${this.#consts++}`;
    this.constants.push(`const ${name}=${code};`);
    return name;
  }

  /** Code that sets `ok` to false (and reports) when `data` does not satisfy `schema`. */
  node(schema: SchemaNode, data: string, path: Path, ok: string, tracking: Tracking): string {
    if (schema === true) return '';
    if (schema === false) return `${ok}=$r(E,${pathCode(path)},"false schema");`;
    const s = schema as Schema;
    const own: Tracking = {
      props: s['unevaluatedProperties'] !== undefined ? this.variable('tp') : tracking.props,
      items: s['unevaluatedItems'] !== undefined ? this.variable('ti') : tracking.items,
    };
    let code = '';
    if (own.props !== tracking.props) code += `const ${own.props}=new Set();`;
    if (own.items !== tracking.items) code += `const ${own.items}={n:0,a:false,s:null};`;
    const ref = typeof s['$ref'] === 'string' ? refName(s['$ref']) : undefined;
    if (ref !== undefined) code += this.#ref(ref, data, path, ok, own);
    const types = typeof s['type'] === 'string' ? [s['type']] : Array.isArray(s['type']) ? (s['type'] as string[]) : undefined;
    const typed = types?.filter((t) => t in TYPE_CHECK) ?? [];
    const groups: [string, string[], string, string][] = [
      ['number', NUMBER_KEYWORDS, 'number', `typeof ${data}==="number"`],
      ['string', STRING_KEYWORDS, 'string', `typeof ${data}==="string"`],
      ['array', ARRAY_KEYWORDS, 'array', `Array.isArray(${data})`],
      ['object', OBJECT_KEYWORDS, 'object', TYPE_CHECK['object']!(data)],
    ];
    const format = typeof s['format'] === 'string' ? s['format'] : undefined;
    const formatOn = format === undefined ? undefined : formatType(format);
    const groupCode = (name: string): string => {
      let out = '';
      if (name === 'number') out += this.#number(s, data, path, ok);
      if (name === 'string') out += this.#string(s, data, path, ok);
      if (name === 'array') out += this.#array(s, data, path, ok, own, tracking);
      if (name === 'object') out += this.#object(s, data, path, ok, own, tracking);
      if (format !== undefined && formatOn === name) out += this.#format(format, data, path, ok);
      return out;
    };
    // A single declared type: the type-specific keywords run in the branch where the type holds.
    const single = typed.length === 1 ? typed[0]! : undefined;
    const singleGroup = single === 'integer' ? 'number' : single;
    if (types !== undefined && typed.length > 0) {
      const fails = typed
        .map((t) => (typed.length > 1 && TYPE_FAILS[t]!(data).includes('||') ? `(${TYPE_FAILS[t]!(data)})` : TYPE_FAILS[t]!(data)))
        .join('&&');
      const report = `${ok}=$t(E,${pathCode(path)},${JSON.stringify(typed.join(','))});`;
      const body = singleGroup !== undefined ? groupCode(singleGroup) : '';
      code +=
        body === ''
          ? `if(${fails})${report}`
          : singleIf(body) !== undefined
            ? `if(${fails})${report}else ${body}`
            : `if(${fails})${report}else{${body}}`;
    }
    code += this.#any(s, data, path, ok, own);
    for (const [name, , , guard] of groups) {
      if (name === singleGroup) continue;
      const body = groupCode(name);
      if (body !== '') code += `if(${guard}){${body}}`;
    }
    code += this.#unevaluated(s, data, path, ok, own, tracking);
    return code;
  }

  #ref(name: string, data: string, path: Path, ok: string, tracking: Tracking): string {
    const tracked = tracking.props !== undefined || tracking.items !== undefined;
    const fn = this.#owner.require(name, tracked);
    const args = tracked ? `${data},E,${tracking.props ?? 'null'},${tracking.items ?? 'null'}` : `${data},E`;
    const where = pathCode(path);
    // A failing validator leaves the index of its first error in E.s; $x prefixes those errors' paths.
    return where === '""' ? `if(!${fn}(${args}))${ok}=false;` : `if(!${fn}(${args}))${ok}=$x(E,${where});`;
  }

  #any(s: Schema, data: string, path: Path, ok: string, tracking: Tracking): string {
    let code = '';
    const where = pathCode(path);
    if (s['const'] !== undefined) {
      const value = s['const'];
      const literal = value === null || typeof value !== 'object' ? JSON.stringify(value) : this.constant(JSON.stringify(value));
      const test = value === null || typeof value !== 'object' ? `${data}!==${literal}` : `!$eq(${data},${literal})`;
      code += `if(${test})${ok}=$r(E,${where},"const",${literal});`;
    }
    if (Array.isArray(s['enum'])) {
      const values = s['enum'] as unknown[];
      const scalars = values.filter((v) => v === null || typeof v !== 'object');
      const objects = values.length - scalars.length;
      let test: string;
      const list = JSON.stringify(values);
      if (scalars.length > 8 && objects === 0) test = `!${this.constant(`new Set(${list})`)}.has(${data})`;
      else {
        const parts = scalars.map((v) => `${data}!==${JSON.stringify(v)}`);
        if (objects > 0) parts.push(`!${this.constant(list)}.some((v)=>$eq(${data},v))`);
        test = parts.length === 0 ? 'true' : parts.join('&&');
      }
      code += `if(${test})${ok}=$r(E,${where},"enum",${list});`;
    }
    if (s['not'] !== undefined) {
      const n = this.variable('n');
      const o = this.variable('o');
      code += `{const ${n}=E.length;let ${o}=true;${this.node(s['not'] as SchemaNode, data, path, o, {})}E.length=${n};if(${o})${ok}=$r(E,${where},"not");}`;
    }
    if (Array.isArray(s['anyOf'])) {
      const n = this.variable('n');
      const any = this.variable('a');
      code += `{const ${n}=E.length;let ${any}=false;`;
      for (const branch of s['anyOf'] as SchemaNode[]) {
        const o = this.variable('o');
        const t = this.#branchTracking(tracking);
        code += `{let ${o}=true;${t.declare}${this.node(branch, data, path, o, t.tracking)}if(${o}){${any}=true;${t.merge}}}`;
      }
      code += `if(${any})E.length=${n};else ${ok}=$r(E,${where},"anyOf");}`;
    }
    if (Array.isArray(s['oneOf'])) {
      const n = this.variable('n');
      const passing = this.variable('p');
      code += `{const ${n}=E.length;let ${passing}=-1;`;
      (s['oneOf'] as SchemaNode[]).forEach((branch, i) => {
        const o = this.variable('o');
        const t = this.#branchTracking(tracking);
        code += `{let ${o}=true;${t.declare}${this.node(branch, data, path, o, t.tracking)}if(${o}){if(${passing}<0){${passing}=${i};${t.merge}}else ${passing}=[${passing},${i}];}}`;
      });
      code += `if(${passing}===-1||Array.isArray(${passing}))${ok}=$r(E,${where},"oneOf",${passing});else E.length=${n};}`;
    }
    if (Array.isArray(s['allOf'])) for (const branch of s['allOf'] as SchemaNode[]) code += this.node(branch, data, path, ok, tracking);
    if (s['if'] !== undefined && (s['then'] !== undefined || s['else'] !== undefined)) {
      const n = this.variable('n');
      const o = this.variable('o');
      const t = this.#branchTracking(tracking);
      code += `{const ${n}=E.length;let ${o}=true;${t.declare}${this.node(s['if'] as SchemaNode, data, path, o, t.tracking)}E.length=${n};`;
      for (const [when, key] of [
        [o, 'then'],
        [`!${o}`, 'else'],
      ] as const) {
        if (s[key] === undefined) continue;
        const b = this.variable('o');
        code += `if(${when}){${key === 'then' ? t.merge : ''}let ${b}=true;${this.node(s[key] as SchemaNode, data, path, b, tracking)}if(!${b})${ok}=$r(E,${where},"if",${JSON.stringify(key)});}`;
      }
      code += '}';
    }
    return code;
  }

  #branchTracking(tracking: Tracking): { declare: string; merge: string; tracking: Tracking } {
    if (tracking.props === undefined && tracking.items === undefined) return { declare: '', merge: '', tracking };
    const props = tracking.props !== undefined ? this.variable('tp') : undefined;
    const items = tracking.items !== undefined ? this.variable('ti') : undefined;
    return {
      declare: `${props ? `const ${props}=new Set();` : ''}${items ? `const ${items}={n:0,a:false,s:null};` : ''}`,
      merge: `${props ? `for(const k of ${props})${tracking.props}.add(k);` : ''}${items ? `$mi(${tracking.items},${items});` : ''}`,
      tracking: { ...(props ? { props } : {}), ...(items ? { items } : {}) },
    };
  }

  #number(s: Schema, data: string, path: Path, ok: string): string {
    let code = '';
    const where = pathCode(path);
    const bounds: [string, string][] = [
      ['minimum', '<'],
      ['maximum', '>'],
      ['exclusiveMinimum', '<='],
      ['exclusiveMaximum', '>='],
    ];
    for (const [keyword, failing] of bounds) {
      const limit = s[keyword];
      if (typeof limit === 'number') code += `if(${data}${failing}${limit})${ok}=$r(E,${where},"${keyword}",${limit});`;
    }
    const multiple = s['multipleOf'];
    if (typeof multiple === 'number' && multiple > 0)
      code += `if(!Number.isInteger(${data}/${multiple}))${ok}=$r(E,${where},"multipleOf",${multiple});`;
    return code;
  }

  #string(s: Schema, data: string, path: Path, ok: string): string {
    let code = '';
    const where = pathCode(path);
    const min = s['minLength'];
    const max = s['maxLength'];
    // Lengths count code points; the UTF-16 length bounds them, so most strings need no count.
    if (typeof max === 'number') code += `if(${data}.length>${max}&&$len(${data})>${max})${ok}=$r(E,${where},"maxLength",${max});`;
    if (typeof min === 'number' && min > 0)
      code += `if(${data}.length<${min * 2}&&$len(${data})<${min})${ok}=$r(E,${where},"minLength",${min});`;
    if (typeof s['pattern'] === 'string') {
      const re = this.constant(`new RegExp(${JSON.stringify(s['pattern'])},"u")`);
      code += `if(!${re}.test(${data}))${ok}=$r(E,${where},"pattern",${JSON.stringify(s['pattern'])});`;
    }
    return code;
  }

  #format(format: string, data: string, path: Path, ok: string): string {
    const check = this.#owner.format(format);
    if (check === undefined) return '';
    return `if(!${check}(${data}))${ok}=$f(E,${pathCode(path)},${JSON.stringify(format)});`;
  }

  #array(s: Schema, data: string, path: Path, ok: string, own: Tracking, _outer: Tracking): string {
    let code = '';
    const where = pathCode(path);
    if (typeof s['minItems'] === 'number' && s['minItems'] > 0)
      code += `if(${data}.length<${s['minItems']})${ok}=$r(E,${where},"minItems",${s['minItems']});`;
    if (typeof s['maxItems'] === 'number') code += `if(${data}.length>${s['maxItems']})${ok}=$r(E,${where},"maxItems",${s['maxItems']});`;
    if (s['uniqueItems'] === true) code += `{const u=$uniq(${data});if(u)${ok}=$r(E,${where},"uniqueItems",u);}`;
    const prefix = Array.isArray(s['prefixItems']) ? (s['prefixItems'] as SchemaNode[]) : [];
    prefix.forEach((item, i) => {
      const d = this.variable('d');
      const body = this.node(item, d, child(path, String(i)), ok, {});
      if (body !== '') code += `if(${data}.length>${i}){const ${d}=${data}[${i}];${body}}`;
    });
    if (prefix.length > 0 && own.items !== undefined)
      code += `${own.items}.n=Math.max(${own.items}.n,Math.min(${data}.length,${prefix.length}));`;
    const items = s['items'] as SchemaNode | undefined;
    if (items !== undefined) {
      const i = this.variable('i');
      const d = this.variable('d');
      if (items === false) {
        code += `if(${data}.length>${prefix.length})${ok}=$r(E,${where},"items",${prefix.length});`;
      } else {
        const body = this.node(items, d, childExpr(path, i, false), ok, {});
        if (body !== '') code += `for(let ${i}=${prefix.length};${i}<${data}.length;${i}++){const ${d}=${data}[${i}];${body}}`;
      }
      if (own.items !== undefined) code += `${own.items}.a=true;`;
    }
    if (s['contains'] !== undefined) {
      const i = this.variable('i');
      const d = this.variable('d');
      const c = this.variable('c');
      const n = this.variable('n');
      const o = this.variable('o');
      const min = typeof s['minContains'] === 'number' ? s['minContains'] : 1;
      const max = typeof s['maxContains'] === 'number' ? s['maxContains'] : undefined;
      const mark = own.items !== undefined ? `(${own.items}.s??=new Set()).add(${i});` : '';
      code += `{const ${n}=E.length;let ${c}=0;for(let ${i}=0;${i}<${data}.length;${i}++){const ${d}=${data}[${i}];let ${o}=true;${this.node(s['contains'] as SchemaNode, d, childExpr(path, i, false), o, {})}if(${o}){${c}++;${mark}}}E.length=${n};`;
      if (min > 0) code += `if(${c}<${min})${ok}=$r(E,${where},"contains",${min});`;
      if (max !== undefined) code += `if(${c}>${max})${ok}=$r(E,${where},"maxContains",${max});`;
      code += '}';
    }
    return code;
  }

  #object(s: Schema, data: string, path: Path, ok: string, own: Tracking, _outer: Tracking): string {
    let code = '';
    const where = pathCode(path);
    const has = (key: string): string =>
      inherited(key)
        ? `Object.hasOwn(${data},${JSON.stringify(key)})&&${data}[${JSON.stringify(key)}]!==undefined`
        : `${propertyAccess(data, key)}!==undefined`;
    const missing = (key: string): string => (inherited(key) ? `!(${has(key)})` : `${propertyAccess(data, key)}===undefined`);
    if (typeof s['minProperties'] === 'number' && s['minProperties'] > 0)
      code += `if(Object.keys(${data}).length<${s['minProperties']})${ok}=$r(E,${where},"minProperties",${s['minProperties']});`;
    if (typeof s['maxProperties'] === 'number')
      code += `if(Object.keys(${data}).length>${s['maxProperties']})${ok}=$r(E,${where},"maxProperties",${s['maxProperties']});`;
    if (Array.isArray(s['required']) && s['required'].length > 0) {
      // One test on the success path; the runtime names every missing property.
      const required = [...new Set(s['required'] as string[])];
      code += `if(${required.map(missing).map(parenthesize).join('||')})${ok}=$q(E,${where},${data},${JSON.stringify(required)});`;
    }
    const dependentRequired = s['dependentRequired'] as Record<string, string[]> | undefined;
    if (dependentRequired)
      for (const [key, needs] of Object.entries(dependentRequired)) {
        const inner = needs.map(
          (need) => `if(${missing(need)})${ok}=$r(E,${where},"dependentRequired",[${JSON.stringify(key)},${JSON.stringify(need)}]);`,
        );
        if (inner.length > 0) code += `if(${has(key)}){${inner.join('')}}`;
      }
    if (s['propertyNames'] !== undefined && s['propertyNames'] !== true) {
      const k = this.variable('k');
      const n = this.variable('n');
      const o = this.variable('o');
      code += `for(const ${k} in ${data}){const ${n}=E.length;let ${o}=true;${this.node(s['propertyNames'] as SchemaNode, k, path, o, {})}if(!${o}){E.length=${n};${ok}=$r(E,${where},"propertyNames",${k});}}`;
    }
    const properties = (s['properties'] ?? {}) as Record<string, SchemaNode>;
    const patterns = Object.entries((s['patternProperties'] ?? {}) as Record<string, SchemaNode>).map(
      ([pattern, schema]) => [this.constant(`new RegExp(${JSON.stringify(pattern)},"u")`), schema] as const,
    );
    const additional = s['additionalProperties'] as SchemaNode | undefined;
    const dependentSchemas = s['dependentSchemas'] as Record<string, SchemaNode> | undefined;
    if (dependentSchemas)
      for (const [key, schema] of Object.entries(dependentSchemas)) code += `if(${has(key)}){${this.node(schema, data, path, ok, own)}}`;
    for (const [key, schema] of Object.entries(properties)) {
      const d = this.variable('d');
      const body = this.node(schema, d, child(path, key), ok, {});
      const access = inherited(key)
        ? `(Object.hasOwn(${data},${JSON.stringify(key)})?${data}[${JSON.stringify(key)}]:undefined)`
        : propertyAccess(data, key);
      const mark = own.props !== undefined ? `${own.props}.add(${JSON.stringify(key)});` : '';
      if (body === '' && mark === '') continue;
      const uses = wordsAt(`${mark}${body}`, d).length + 1;
      // A short access read again costs less than a variable (loads of one property are cheap after the first).
      if (!inherited(key) && uses * (access.length - d.length) < access.length + 12) {
        const inline = replaceWord(`${mark}${body}`, d, access);
        code += guarded(`${access}!==undefined`, inline);
      } else code += `const ${d}=${access};${guarded(`${d}!==undefined`, `${mark}${body}`)}`;
    }
    const needsLoop = patterns.length > 0 || (additional !== undefined && (additional !== true || own.props !== undefined));
    if (needsLoop) {
      const k = this.variable('k');
      const d = this.variable('d');
      const keys = Object.keys(properties);
      let loop = `for(const ${k} in ${data}){`;
      if (keys.length > 0 || patterns.length > 0) loop += `let m${k}=false;`;
      const mark = (what: string): string => (own.props !== undefined ? `${own.props}.add(${what});` : '');
      if (keys.length > 0) {
        const known =
          keys.length > 8
            ? `${this.constant(`new Set(${JSON.stringify(keys)})`)}.has(${k})`
            : keys.map((key) => `${k}===${JSON.stringify(key)}`).join('||');
        loop += `if(${known})m${k}=true;`;
      }
      const value = `${data}[${k}]`;
      for (const [re, schema] of patterns) {
        const o = this.variable('o');
        const body = this.node(schema, d, childExpr(path, k, true), o, {});
        loop += `if(${re}.test(${k})){m${k}=true;${mark(k)}${body === '' ? '' : `const ${d}=${value};let ${o}=true;${body}if(!${o})${ok}=false;`}}`;
      }
      if (additional !== undefined) {
        const guard = keys.length > 0 || patterns.length > 0 ? `if(!m${k})` : '';
        if (additional === false) loop += `${guard}${ok}=$r(E,${where},"additionalProperties",${k});`;
        else {
          const body = this.node(additional, d, childExpr(path, k, true), ok, {});
          const inner = `${mark(k)}${body === '' ? '' : `const ${d}=${value};${body}`}`;
          loop += guard === '' ? inner : `${guard}{${inner}}`;
        }
      }
      code += `${loop}}`;
    }
    return code;
  }

  /** `unevaluatedProperties`/`unevaluatedItems` run last, over what nothing else evaluated. */
  #unevaluated(s: Schema, data: string, path: Path, ok: string, own: Tracking, outer: Tracking): string {
    let code = '';
    const where = pathCode(path);
    if (s['unevaluatedProperties'] !== undefined && own.props !== undefined) {
      const k = this.variable('k');
      const d = this.variable('d');
      const rest = s['unevaluatedProperties'] as SchemaNode;
      const body =
        rest === false
          ? `${ok}=$r(E,${where},"unevaluatedProperties",${k});`
          : `const ${d}=${data}[${k}];${this.node(rest, d, childExpr(path, k, true), ok, {})}`;
      code += `if(${TYPE_CHECK['object']!(data)}){for(const ${k} in ${data}){if(!${own.props}.has(${k})){${body}}}`;
      if (outer.props !== undefined) code += `for(const ${k} in ${data})${outer.props}.add(${k});`;
      code += '}';
    }
    if (s['unevaluatedItems'] !== undefined && own.items !== undefined) {
      const i = this.variable('i');
      const d = this.variable('d');
      const t = own.items;
      const rest = s['unevaluatedItems'] as SchemaNode;
      const body =
        rest === false
          ? `${ok}=$r(E,${where},"unevaluatedItems",${i});`
          : `const ${d}=${data}[${i}];${this.node(rest, d, childExpr(path, i, false), ok, {})}`;
      code += `if(Array.isArray(${data})&&!${t}.a){for(let ${i}=${t}.n;${i}<${data}.length;${i}++){if(!${t}.s||!${t}.s.has(${i})){${body}}}}`;
      if (outer.items !== undefined) code += `${outer.items}.a=true;`;
    }
    return code;
  }
}

class ValidatorWriter {
  readonly #model: ContractModel;
  readonly #wanted = new Map<string, boolean>();
  readonly #queue: [string, boolean][] = [];
  readonly #formats = new Map<string, string>();
  readonly #formatConstants = new Map<string, string>();

  constructor(model: ContractModel) {
    this.#model = model;
  }

  /** The function that validates named schema `name` (tracking variants report what they evaluated). */
  require(name: string, tracking = false): string {
    const key = `${name}${tracking ? '$t' : ''}`;
    if (!this.#wanted.has(key)) {
      this.#wanted.set(key, tracking);
      this.#queue.push([name, tracking]);
    }
    return functionName(name, tracking);
  }

  /** A JS expression callable on the value, or undefined for annotation-only formats. */
  format(format: string): string | undefined {
    const known = this.#formats.get(format);
    if (known !== undefined) return known;
    const def = FORMATS[format];
    if (def === undefined || typeof def === 'boolean') return undefined;
    const name = `$f_${format.replace(/[^A-Za-z0-9]/g, '_')}`;
    this.#formatConstants.set(format, `const ${name}=$format(${JSON.stringify(format)});`);
    this.#formats.set(format, name);
    return name;
  }

  write(roots: readonly string[]): { code: string; exports: Map<string, string> } {
    const exports = new Map<string, string>();
    for (const root of roots) {
      exports.set(root, validatorExportName(root));
      this.require(root);
    }
    const functions = new Map<string, string>();
    for (let next = 0; next < this.#queue.length; next++) {
      const [name, tracking] = this.#queue[next]!;
      const schema = this.#model.schemas[name]?.schema ?? true;
      const fn = functionName(name, tracking);
      const writer = new FunctionWriter(this, fn);
      const params = tracking ? 'd,E,tp,ti' : 'd,E';
      const body = writer.node(schema, 'd', [], 'ok', tracking ? { props: 'tp', items: 'ti' } : {});
      // Laid out as indentStatements lays code out, each function from depth 0.
      const indent = new BracketIndenter('\t');
      const lines = [
        ...writer.constants.map((line) => indent.line(line)),
        indent.line(`function ${fn}(${params}){const s=E.length;let ok=true;`),
        ...splitStatements(body).map((line) => indent.line(line.text, line)),
        indent.line('return ok||$s(E,s);'),
        indent.line('}'),
        ...(exports.has(name) && !tracking ? [indent.line(`export const ${validatorExportName(name)}=$root(${fn});`)] : []),
      ];
      functions.set(`${name}${tracking ? '$t' : ''}`, lines.join('\n'));
    }
    const header = [
      'import { validatorRuntime } from "@keiyaku/runtime/codegen-v1";',
      '',
      'const { report: $r, type: $t, required: $q, formatError: $f, prefix: $x, failed: $s, escape: $esc, length: $len, equal: $eq, unique: $uniq, mergeItems: $mi, root: $root, format: $format, isObject: $o } = validatorRuntime;',
      ...[...this.#formatConstants.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, line]) => line),
    ];
    const sorted = [...functions.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, text]) => text);
    return { code: `${[...header, '', sorted.join('\n\n')].join('\n')}\n`, exports };
  }
}

/** A line of validator code and how its brackets move the indentation (as `braces` in generator/emit/format.ts counts them). */
interface CountedLine extends BracketCounts {
  readonly text: string;
}

/**
 * One statement per line: breaks after `;`, after a block's `{` and after its `}` (not inside
 * parentheses, string literals or object literals), each line with its bracket counts, taken
 * in the same pass; a line with a `/` or a backtick outside strings is counted by `braces`.
 */
function splitStatements(code: string): CountedLine[] {
  const out: CountedLine[] = [];
  const stack: ('block' | 'literal')[] = [];
  let parens = 0;
  let start = 0;
  /** The char code of the open string literal's quote, or 0. */
  let quote = 0;
  let opens = 0;
  let closes = 0;
  let leadingCloses = 0;
  let leading = true;
  /** Whether the line has a character that is not whitespace yet. */
  let started = false;
  let unusual = false;
  const cut = (end: number): void => {
    const piece = code.slice(start, end).trim();
    if (piece !== '') out.push(unusual ? { text: piece, ...braces(piece) } : { text: piece, opens, closes, leadingCloses });
    start = end;
    opens = 0;
    closes = 0;
    leadingCloses = 0;
    leading = true;
    started = false;
    unusual = false;
  };
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (quote !== 0) {
      if (c === 0x5c)
        i++; // backslash
      else if (c === quote) quote = 0;
      continue;
    }
    const whitespace = c === 0x20 || (c >= 0x09 && c <= 0x0d);
    if (c === 0x22 || c === 0x27) {
      quote = c;
      leading = false;
    } else if (c === 0x28 || c === 0x5b) {
      parens++;
      opens++;
      leading = false;
    } else if (c === 0x29 || c === 0x5d) {
      parens--;
      closes++;
      if (leading) leadingCloses++;
    } else if (c === 0x7b) {
      let back = i - 1;
      while (back >= 0 && /\s/.test(code[back]!)) back--;
      const before = back >= 0 ? code.charCodeAt(back) : -1;
      // `=`, `(`, `,`, `:`, `[` before a brace open an object literal.
      const literal =
        parens > 0 ||
        stack.at(-1) === 'literal' ||
        before === 0x3d ||
        before === 0x28 ||
        before === 0x2c ||
        before === 0x3a ||
        before === 0x5b ||
        before === -1;
      stack.push(literal && before !== -1 ? 'literal' : 'block');
      opens++;
      leading = false;
      if (stack.at(-1) === 'block') cut(i + 1);
    } else if (c === 0x7d) {
      const kind = stack.pop();
      if (kind === 'block') {
        if (start < i) cut(i);
        closes++;
        if (leading) leadingCloses++;
        if (!code.startsWith('else', i + 1)) cut(i + 1);
      } else {
        closes++;
        if (leading) leadingCloses++;
      }
    } else {
      if (c === 0x2f || c === 0x60) unusual = true; // a division or regex, a template literal
      // Whitespace the line's trim drops does not count; past the first character, only a space keeps a line's closes leading.
      if (c !== 0x20 && (started || !(c >= 0x09 && c <= 0x0d))) leading = false;
      if (c === 0x3b && parens === 0 && stack.at(-1) !== 'literal' && !code.startsWith('else', i + 1)) {
        cut(i + 1);
        continue;
      }
    }
    // A cut resets the line: what was cut after is the last character of the line before.
    if (!whitespace && start <= i) started = true;
  }
  if (start < code.length) cut(code.length);
  return out;
}

/** Compiles validators for `roots` (schema names) of `model`. */
export function buildValidators(model: ContractModel, roots: readonly string[]): ValidatorModule {
  const diagnostics = validatorDiagnostics(model);
  const exports = new Map<string, string>();
  if (diagnostics.some((d) => d.severity === 'error')) return { code: '', exports, diagnostics };
  const written = new ValidatorWriter(model).write([...new Set(roots)].sort());
  return { code: written.code, exports: written.exports, diagnostics };
}

/** What keeps schemas of `model` from becoming validators (unknown formats are reported by the schema registry, generator/model/schema-object.ts). */
export function validatorDiagnostics(model: ContractModel): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [name, named] of Object.entries(model.schemas)) {
    walk(named.schema, (node) => {
      const patterns = [
        ...(typeof node['pattern'] === 'string' ? [node['pattern']] : []),
        ...Object.keys((node['patternProperties'] ?? {}) as object),
      ];
      for (const pattern of patterns) {
        try {
          new RegExp(pattern, 'u');
        } catch (cause) {
          diagnostics.push({
            severity: 'error',
            code: 'schema_not_compilable',
            message: `schema ${name} cannot be compiled into a validator: ${cause instanceof Error ? cause.message : String(cause)}`,
            hint: 'fix the schema (an invalid regular expression in "pattern" is the usual cause)',
            ...(named.location ? { location: named.location } : {}),
          });
        }
      }
    });
  }
  return diagnostics;
}

function walk(schema: unknown, visit: (node: Schema) => void): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) {
    for (const item of schema) walk(item, visit);
    return;
  }
  visit(schema as Schema);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples' || key.startsWith('x-')) continue;
    walk(value, visit);
  }
}

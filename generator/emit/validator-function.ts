/**
 * One named schema compiled into the statements of one validator function (see
 * generator/emit/validators.ts for the module around them): each keyword becomes the checks that
 * report its errors, built as structure (generator/emit/validator-code.ts).
 */
import { createRequire } from 'node:module';
import { refName, type SchemaNode } from '../model/contract-model.js';
import {
  block,
  type Code,
  guarded,
  ifThen,
  isSingleIf,
  joinCode,
  js,
  parenthesize,
  type Statement,
  text,
  uses,
  Variable,
} from './validator-code.js';
import { ANY, GROUP_BITS, KEYWORD_GROUPS, TYPE_GROUPS, type TypeGroup, UNEVALUATED } from './validator-keywords.js';
import { child, childExpr, type Path, pathCode } from './validator-path.js';

const require = createRequire(import.meta.url);
type FormatDefinition = RegExp | ((s: string) => boolean) | boolean | { type?: string; validate: RegExp | ((s: unknown) => boolean) };
export const FORMATS = (require('ajv-formats/dist/formats') as { fullFormats: Record<string, FormatDefinition> }).fullFormats;

type Schema = Record<string, unknown>;

/** Property names that plain objects inherit: their presence must be an own-property test. */
function inherited(key: string): boolean {
  return key in Object.prototype || key === '__proto__';
}

function propertyAccess(data: Code, key: string): Code {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? js`${data}.${key}` : js`${data}[${JSON.stringify(key)}]`;
}

/** Whether JSON of `value` has an object literal (braces outside strings). */
function hasObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  return !Array.isArray(value) || value.some(hasObject);
}

const TYPE_FAILS: Record<string, (d: Code) => Code> = {
  string: (d) => js`typeof ${d}!=="string"`,
  number: (d) => js`typeof ${d}!=="number"||!isFinite(${d})`,
  integer: (d) => js`!Number.isInteger(${d})`,
  boolean: (d) => js`typeof ${d}!=="boolean"`,
  null: (d) => js`${d}!==null`,
  object: (d) => js`!$o(${d})`,
  array: (d) => js`!Array.isArray(${d})`,
};

const TYPE_CHECK: Record<string, (d: Code) => Code> = {
  string: (d) => js`typeof ${d}==="string"`,
  number: (d) => js`typeof ${d}==="number"&&isFinite(${d})`,
  integer: (d) => js`Number.isInteger(${d})`,
  boolean: (d) => js`typeof ${d}==="boolean"`,
  null: (d) => js`${d}===null`,
  object: (d) => js`$o(${d})`,
  array: (d) => js`Array.isArray(${d})`,
};

/** The test that `data` is of a group's type, around that group's checks when the schema declares another type. */
const GROUP_GUARDS: Readonly<Record<TypeGroup, (d: Code) => Code>> = {
  number: (d) => js`typeof ${d}==="number"`,
  string: (d) => js`typeof ${d}==="string"`,
  array: (d) => js`Array.isArray(${d})`,
  object: TYPE_CHECK['object']!,
};

function formatType(format: string): 'string' | 'number' | undefined {
  const def = FORMATS[format];
  if (def === undefined || def === true || def === false) return undefined;
  if (typeof def === 'object' && !(def instanceof RegExp) && def.type === 'number') return 'number';
  return 'string';
}

/** Trackers of evaluated properties/items for `unevaluated*` (names of JS variables). */
export interface Tracking {
  readonly props?: string | undefined;
  readonly items?: string | undefined;
}

/** No tracking: the subschemas of `properties`, `items`, `not`, … report nothing of what they evaluated. */
const UNTRACKED: Tracking = Object.freeze({});

/** What a function's code needs of the module around it. */
export interface ValidatorModuleScope {
  /** The function that validates named schema `name` (tracking variants report what they evaluated). */
  require(name: string, tracking?: boolean): string;
  /** A JS expression callable on the value, or undefined for annotation-only formats. */
  format(format: string): string | undefined;
}

/** Compiles one named schema into one function. All state is per function, so names are stable. */
export class FunctionWriter {
  readonly #owner: ValidatorModuleScope;
  readonly #prefix: string;
  readonly constants: string[] = [];
  #vars = 0;
  #consts = 0;

  constructor(owner: ValidatorModuleScope, prefix: string) {
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

  /** Statements that set `ok` to false (and report) when `data` does not satisfy `schema`. */
  node(schema: SchemaNode, data: Code, path: Path, ok: string, tracking: Tracking): Statement[] {
    if (schema === true) return [];
    if (schema === false) return [`${ok}=$r(E,${pathCode(path)},"false schema");`];
    const s = schema as Schema;
    // Which groups of keywords the schema has: a group it has none of writes nothing, so it is not asked.
    let groups = 0;
    for (const key in s) groups |= KEYWORD_GROUPS.get(key) ?? 0;
    const own: Tracking =
      (groups & UNEVALUATED) === 0
        ? tracking
        : {
            props: s['unevaluatedProperties'] !== undefined ? this.variable('tp') : tracking.props,
            items: s['unevaluatedItems'] !== undefined ? this.variable('ti') : tracking.items,
          };
    const code: Statement[] = [];
    if (own.props !== tracking.props) code.push(`const ${own.props}=new Set();`);
    if (own.items !== tracking.items) code.push(`const ${own.items}={n:0,a:false,s:null};`);
    const ref = typeof s['$ref'] === 'string' ? refName(s['$ref']) : undefined;
    if (ref !== undefined) code.push(this.#ref(ref, data, path, ok, own));
    const types = typeof s['type'] === 'string' ? [s['type']] : Array.isArray(s['type']) ? (s['type'] as string[]) : undefined;
    const typed = types?.filter((t) => t in TYPE_CHECK) ?? [];
    const format = typeof s['format'] === 'string' ? s['format'] : undefined;
    const formatOn = format === undefined ? undefined : formatType(format);
    if (formatOn !== undefined) groups |= GROUP_BITS[formatOn];
    // A single declared type: the type-specific keywords run in the branch where the type holds.
    const single = typed.length === 1 ? typed[0]! : undefined;
    const singleGroup = single === 'integer' ? 'number' : (single as TypeGroup | undefined);
    if (types !== undefined && typed.length > 0) {
      const fails = joinCode(
        typed.map((t) => {
          const fail = TYPE_FAILS[t]!(data);
          return typed.length > 1 && text(fail).includes('||') ? js`(${fail})` : fail;
        }),
        '&&',
      );
      const report = `${ok}=$t(E,${pathCode(path)},${JSON.stringify(typed.join(','))});`;
      const body =
        singleGroup !== undefined && singleGroup in GROUP_BITS && (groups & GROUP_BITS[singleGroup]) !== 0
          ? this.#group(singleGroup, s, data, path, ok, own, format, formatOn)
          : [];
      code.push(
        body.length === 0
          ? ifThen(fails, report)
          : ifThen(fails, report, body.length === 1 && isSingleIf(body[0]!) ? body[0] : block('', body)),
      );
    }
    if ((groups & ANY) !== 0) code.push(...this.#any(s, data, path, ok, own));
    for (const name of TYPE_GROUPS) {
      if (name === singleGroup || (groups & GROUP_BITS[name]) === 0) continue;
      const body = this.#group(name, s, data, path, ok, own, format, formatOn);
      if (body.length > 0) code.push(ifThen(GROUP_GUARDS[name](data), block('', body)));
    }
    if ((groups & UNEVALUATED) !== 0) code.push(...this.#unevaluated(s, data, path, ok, own, tracking));
    return code;
  }

  /** The checks of one group of keywords (`format` with the group of values it applies to), run where `data` is of that type. */
  #group(
    name: TypeGroup,
    s: Schema,
    data: Code,
    path: Path,
    ok: string,
    own: Tracking,
    format: string | undefined,
    formatOn: TypeGroup | undefined,
  ): Statement[] {
    const out =
      name === 'number'
        ? this.#number(s, data, path, ok)
        : name === 'string'
          ? this.#string(s, data, path, ok)
          : name === 'array'
            ? this.#array(s, data, path, ok, own)
            : this.#object(s, data, path, ok, own);
    if (format !== undefined && formatOn === name) out.push(...this.#format(format, data, path, ok));
    return out;
  }

  #ref(name: string, data: Code, path: Path, ok: string, tracking: Tracking): Statement {
    const tracked = tracking.props !== undefined || tracking.items !== undefined;
    const fn = this.#owner.require(name, tracked);
    const args = tracked ? js`${data},E,${tracking.props ?? 'null'},${tracking.items ?? 'null'}` : js`${data},E`;
    const where = pathCode(path);
    // A failing validator leaves the index of its first error in E.s; $x prefixes those errors' paths.
    return ifThen(js`!${fn}(${args})`, where === '""' ? `${ok}=false;` : `${ok}=$x(E,${where});`);
  }

  #any(s: Schema, data: Code, path: Path, ok: string, tracking: Tracking): Statement[] {
    const code: Statement[] = [];
    const where = pathCode(path);
    if (s['const'] !== undefined) {
      const value = s['const'];
      const literal = value === null || typeof value !== 'object' ? JSON.stringify(value) : this.constant(JSON.stringify(value));
      const test = value === null || typeof value !== 'object' ? js`${data}!==${literal}` : js`!$eq(${data},${literal})`;
      code.push(ifThen(test, `${ok}=$r(E,${where},"const",${literal});`));
    }
    if (Array.isArray(s['enum'])) {
      const values = s['enum'] as unknown[];
      const scalars = values.filter((v) => v === null || typeof v !== 'object');
      const objects = values.length - scalars.length;
      let test: Code;
      const list = JSON.stringify(values);
      if (scalars.length > 8 && objects === 0) test = js`!${this.constant(`new Set(${list})`)}.has(${data})`;
      else {
        const parts = scalars.map((v) => js`${data}!==${JSON.stringify(v)}`);
        if (objects > 0) parts.push(js`!${this.constant(list)}.some((v)=>$eq(${data},v))`);
        test = parts.length === 0 ? 'true' : joinCode(parts, '&&');
      }
      const report = `${ok}=$r(E,${where},"enum",${list});`;
      code.push(ifThen(test, values.some(hasObject) ? { kind: 'literal', code: report } : report));
    }
    if (s['not'] !== undefined) {
      const n = this.variable('n');
      const o = this.variable('o');
      code.push(
        block('', [
          `const ${n}=E.length;`,
          `let ${o}=true;`,
          ...this.node(s['not'] as SchemaNode, data, path, o, UNTRACKED),
          `E.length=${n};`,
          ifThen(o, `${ok}=$r(E,${where},"not");`),
        ]),
      );
    }
    if (Array.isArray(s['anyOf'])) {
      const n = this.variable('n');
      const any = this.variable('a');
      const body: Statement[] = [`const ${n}=E.length;`, `let ${any}=false;`];
      for (const branch of s['anyOf'] as SchemaNode[]) {
        const o = this.variable('o');
        const t = this.#branchTracking(tracking);
        body.push(
          block('', [
            `let ${o}=true;`,
            ...t.declare,
            ...this.node(branch, data, path, o, t.tracking),
            ifThen(o, block('', [`${any}=true;`, ...t.merge])),
          ]),
        );
      }
      body.push(ifThen(any, `E.length=${n};`, `${ok}=$r(E,${where},"anyOf");`));
      code.push(block('', body));
    }
    if (Array.isArray(s['oneOf'])) {
      const n = this.variable('n');
      const passing = this.variable('p');
      const body: Statement[] = [`const ${n}=E.length;`, `let ${passing}=-1;`];
      (s['oneOf'] as SchemaNode[]).forEach((branch, i) => {
        const o = this.variable('o');
        const t = this.#branchTracking(tracking);
        const first = ifThen(`${passing}<0`, block('', [`${passing}=${i};`, ...t.merge]), `${passing}=[${passing},${i}];`);
        body.push(
          block('', [`let ${o}=true;`, ...t.declare, ...this.node(branch, data, path, o, t.tracking), ifThen(o, block('', [first]))]),
        );
      });
      body.push(ifThen(`${passing}===-1||Array.isArray(${passing})`, `${ok}=$r(E,${where},"oneOf",${passing});`, `E.length=${n};`));
      code.push(block('', body));
    }
    if (Array.isArray(s['allOf']))
      for (const branch of s['allOf'] as SchemaNode[]) code.push(...this.node(branch, data, path, ok, tracking));
    if (s['if'] !== undefined && (s['then'] !== undefined || s['else'] !== undefined))
      code.push(this.#ifThenElse(s, data, path, ok, tracking));
    return code;
  }

  #ifThenElse(s: Schema, data: Code, path: Path, ok: string, tracking: Tracking): Statement {
    const where = pathCode(path);
    const n = this.variable('n');
    const o = this.variable('o');
    const t = this.#branchTracking(tracking);
    const body: Statement[] = [
      `const ${n}=E.length;`,
      `let ${o}=true;`,
      ...t.declare,
      ...this.node(s['if'] as SchemaNode, data, path, o, t.tracking),
      `E.length=${n};`,
    ];
    for (const [when, key] of [
      [o, 'then'],
      [`!${o}`, 'else'],
    ] as const) {
      if (s[key] === undefined) continue;
      const b = this.variable('o');
      body.push(
        ifThen(
          when,
          block('', [
            ...(key === 'then' ? t.merge : []),
            `let ${b}=true;`,
            ...this.node(s[key] as SchemaNode, data, path, b, tracking),
            ifThen(`!${b}`, `${ok}=$r(E,${where},"if",${JSON.stringify(key)});`),
          ]),
        ),
      );
    }
    return block('', body);
  }

  #branchTracking(tracking: Tracking): { declare: Statement[]; merge: Statement[]; tracking: Tracking } {
    if (tracking.props === undefined && tracking.items === undefined) return { declare: [], merge: [], tracking };
    const props = tracking.props !== undefined ? this.variable('tp') : undefined;
    const items = tracking.items !== undefined ? this.variable('ti') : undefined;
    return {
      declare: [...(props ? [`const ${props}=new Set();`] : []), ...(items ? [`const ${items}={n:0,a:false,s:null};`] : [])],
      merge: [
        ...(props ? [`for(const k of ${props})${tracking.props}.add(k);`] : []),
        ...(items ? [`$mi(${tracking.items},${items});`] : []),
      ],
      tracking: { ...(props ? { props } : {}), ...(items ? { items } : {}) },
    };
  }

  #number(s: Schema, data: Code, path: Path, ok: string): Statement[] {
    const code: Statement[] = [];
    const where = pathCode(path);
    const bounds: [string, string][] = [
      ['minimum', '<'],
      ['maximum', '>'],
      ['exclusiveMinimum', '<='],
      ['exclusiveMaximum', '>='],
    ];
    for (const [keyword, failing] of bounds) {
      const limit = s[keyword];
      if (typeof limit === 'number') code.push(ifThen(js`${data}${failing}${limit}`, `${ok}=$r(E,${where},"${keyword}",${limit});`));
    }
    const multiple = s['multipleOf'];
    if (typeof multiple === 'number' && multiple > 0)
      code.push(ifThen(js`!Number.isInteger(${data}/${multiple})`, `${ok}=$r(E,${where},"multipleOf",${multiple});`));
    return code;
  }

  #string(s: Schema, data: Code, path: Path, ok: string): Statement[] {
    const code: Statement[] = [];
    const where = pathCode(path);
    const min = s['minLength'];
    const max = s['maxLength'];
    // Lengths count code points; the UTF-16 length bounds them, so most strings need no count.
    if (typeof max === 'number')
      code.push(ifThen(js`${data}.length>${max}&&$len(${data})>${max}`, `${ok}=$r(E,${where},"maxLength",${max});`));
    if (typeof min === 'number' && min > 0)
      code.push(ifThen(js`${data}.length<${min * 2}&&$len(${data})<${min}`, `${ok}=$r(E,${where},"minLength",${min});`));
    if (typeof s['pattern'] === 'string') {
      const re = this.constant(`new RegExp(${JSON.stringify(s['pattern'])},"u")`);
      code.push(ifThen(js`!${re}.test(${data})`, `${ok}=$r(E,${where},"pattern",${JSON.stringify(s['pattern'])});`));
    }
    return code;
  }

  #format(format: string, data: Code, path: Path, ok: string): Statement[] {
    const check = this.#owner.format(format);
    if (check === undefined) return [];
    return [ifThen(js`!${check}(${data})`, `${ok}=$f(E,${pathCode(path)},${JSON.stringify(format)});`)];
  }

  #array(s: Schema, data: Code, path: Path, ok: string, own: Tracking): Statement[] {
    const code: Statement[] = [];
    const where = pathCode(path);
    if (typeof s['minItems'] === 'number' && s['minItems'] > 0)
      code.push(ifThen(js`${data}.length<${s['minItems']}`, `${ok}=$r(E,${where},"minItems",${s['minItems']});`));
    if (typeof s['maxItems'] === 'number')
      code.push(ifThen(js`${data}.length>${s['maxItems']}`, `${ok}=$r(E,${where},"maxItems",${s['maxItems']});`));
    if (s['uniqueItems'] === true)
      code.push(block('', [js`const u=$uniq(${data});`, ifThen('u', `${ok}=$r(E,${where},"uniqueItems",u);`)]));
    const prefix = Array.isArray(s['prefixItems']) ? (s['prefixItems'] as SchemaNode[]) : [];
    prefix.forEach((item, i) => {
      const d = this.variable('d');
      const body = this.node(item, d, child(path, String(i)), ok, UNTRACKED);
      if (body.length > 0) code.push(ifThen(js`${data}.length>${i}`, block('', [js`const ${d}=${data}[${i}];`, ...body])));
    });
    if (prefix.length > 0 && own.items !== undefined)
      code.push(js`${own.items}.n=Math.max(${own.items}.n,Math.min(${data}.length,${prefix.length}));`);
    const items = s['items'] as SchemaNode | undefined;
    if (items !== undefined) {
      const i = this.variable('i');
      const d = this.variable('d');
      if (items === false) {
        code.push(ifThen(js`${data}.length>${prefix.length}`, `${ok}=$r(E,${where},"items",${prefix.length});`));
      } else {
        const body = this.node(items, d, childExpr(path, i, false), ok, UNTRACKED);
        if (body.length > 0)
          code.push(block(js`for(let ${i}=${prefix.length};${i}<${data}.length;${i}++)`, [js`const ${d}=${data}[${i}];`, ...body]));
      }
      if (own.items !== undefined) code.push(`${own.items}.a=true;`);
    }
    if (s['contains'] !== undefined) code.push(this.#contains(s, data, path, ok, own));
    return code;
  }

  #contains(s: Schema, data: Code, path: Path, ok: string, own: Tracking): Statement {
    const where = pathCode(path);
    const i = this.variable('i');
    const d = this.variable('d');
    const c = this.variable('c');
    const n = this.variable('n');
    const o = this.variable('o');
    const min = typeof s['minContains'] === 'number' ? s['minContains'] : 1;
    const max = typeof s['maxContains'] === 'number' ? s['maxContains'] : undefined;
    const mark = own.items !== undefined ? [`(${own.items}.s??=new Set()).add(${i});`] : [];
    const loop = block(js`for(let ${i}=0;${i}<${data}.length;${i}++)`, [
      js`const ${d}=${data}[${i}];`,
      `let ${o}=true;`,
      ...this.node(s['contains'] as SchemaNode, d, childExpr(path, i, false), o, UNTRACKED),
      ifThen(o, block('', [`${c}++;`, ...mark])),
    ]);
    const body: Statement[] = [`const ${n}=E.length;`, `let ${c}=0;`, loop, `E.length=${n};`];
    if (min > 0) body.push(ifThen(`${c}<${min}`, `${ok}=$r(E,${where},"contains",${min});`));
    if (max !== undefined) body.push(ifThen(`${c}>${max}`, `${ok}=$r(E,${where},"maxContains",${max});`));
    return block('', body);
  }

  #object(s: Schema, data: Code, path: Path, ok: string, own: Tracking): Statement[] {
    const code: Statement[] = [];
    const where = pathCode(path);
    const has = (key: string): Code =>
      inherited(key)
        ? js`Object.hasOwn(${data},${JSON.stringify(key)})&&${data}[${JSON.stringify(key)}]!==undefined`
        : js`${propertyAccess(data, key)}!==undefined`;
    const missing = (key: string): Code => (inherited(key) ? js`!(${has(key)})` : js`${propertyAccess(data, key)}===undefined`);
    if (typeof s['minProperties'] === 'number' && s['minProperties'] > 0)
      code.push(
        ifThen(js`Object.keys(${data}).length<${s['minProperties']}`, `${ok}=$r(E,${where},"minProperties",${s['minProperties']});`),
      );
    if (typeof s['maxProperties'] === 'number')
      code.push(
        ifThen(js`Object.keys(${data}).length>${s['maxProperties']}`, `${ok}=$r(E,${where},"maxProperties",${s['maxProperties']});`),
      );
    if (Array.isArray(s['required']) && s['required'].length > 0) {
      // One test on the success path; the runtime names every missing property.
      const required = [...new Set(s['required'] as string[])];
      code.push(
        ifThen(joinCode(required.map(missing).map(parenthesize), '||'), js`${ok}=$q(E,${where},${data},${JSON.stringify(required)});`),
      );
    }
    const dependentRequired = s['dependentRequired'] as Record<string, string[]> | undefined;
    if (dependentRequired)
      for (const [key, needs] of Object.entries(dependentRequired)) {
        const inner = needs.map((need) =>
          ifThen(missing(need), `${ok}=$r(E,${where},"dependentRequired",[${JSON.stringify(key)},${JSON.stringify(need)}]);`),
        );
        if (inner.length > 0) code.push(ifThen(has(key), block('', inner)));
      }
    if (s['propertyNames'] !== undefined && s['propertyNames'] !== true) {
      const k = this.variable('k');
      const n = this.variable('n');
      const o = this.variable('o');
      code.push(
        block(js`for(const ${k} in ${data})`, [
          `const ${n}=E.length;`,
          `let ${o}=true;`,
          ...this.node(s['propertyNames'] as SchemaNode, k, path, o, UNTRACKED),
          ifThen(`!${o}`, block('', [`E.length=${n};`, `${ok}=$r(E,${where},"propertyNames",${k});`])),
        ]),
      );
    }
    code.push(...this.#properties(s, data, path, ok, own, has));
    return code;
  }

  /**
   * `dependentSchemas` and `properties`, then one loop over the object for `patternProperties` and
   * `additionalProperties` (the pattern constants are declared first, so they keep their numbers).
   */
  #properties(s: Schema, data: Code, path: Path, ok: string, own: Tracking, has: (key: string) => Code): Statement[] {
    const code: Statement[] = [];
    const where = pathCode(path);
    const properties = (s['properties'] ?? {}) as Record<string, SchemaNode>;
    const patterns = Object.entries((s['patternProperties'] ?? {}) as Record<string, SchemaNode>).map(
      ([pattern, schema]) => [this.constant(`new RegExp(${JSON.stringify(pattern)},"u")`), schema] as const,
    );
    const additional = s['additionalProperties'] as SchemaNode | undefined;
    const dependentSchemas = s['dependentSchemas'] as Record<string, SchemaNode> | undefined;
    if (dependentSchemas)
      for (const [key, schema] of Object.entries(dependentSchemas))
        code.push(ifThen(has(key), block('', this.node(schema, data, path, ok, own))));
    for (const [key, schema] of Object.entries(properties)) {
      const d = new Variable(this.variable('d'));
      const body = this.node(schema, js`${d}`, child(path, key), ok, UNTRACKED);
      const access = inherited(key)
        ? js`(Object.hasOwn(${data},${JSON.stringify(key)})?${data}[${JSON.stringify(key)}]:undefined)`
        : propertyAccess(data, key);
      const marked: Statement[] = own.props !== undefined ? [`${own.props}.add(${JSON.stringify(key)});`, ...body] : body;
      if (marked.length === 0) continue;
      const length = text(access).length;
      // A short access read again costs less than a variable (loads of one property are cheap after the first).
      if (!inherited(key) && (uses(marked, d) + 1) * (length - d.name.length) < length + 12) {
        d.inline = access;
        code.push(...guarded(js`${access}!==undefined`, marked));
      } else code.push(js`const ${d.name}=${access};`, ...guarded(`${d.name}!==undefined`, marked));
    }
    if (patterns.length === 0 && (additional === undefined || (additional === true && own.props === undefined))) return code;
    const k = this.variable('k');
    const d = this.variable('d');
    const keys = Object.keys(properties);
    const loop: Statement[] = [];
    if (keys.length > 0 || patterns.length > 0) loop.push(`let m${k}=false;`);
    const mark = (what: string): Statement[] => (own.props !== undefined ? [`${own.props}.add(${what});`] : []);
    if (keys.length > 0) {
      const known =
        keys.length > 8
          ? `${this.constant(`new Set(${JSON.stringify(keys)})`)}.has(${k})`
          : keys.map((key) => `${k}===${JSON.stringify(key)}`).join('||');
      loop.push(ifThen(known, `m${k}=true;`));
    }
    const value = js`${data}[${k}]`;
    for (const [re, schema] of patterns) {
      const o = this.variable('o');
      const body = this.node(schema, d, childExpr(path, k, true), o, UNTRACKED);
      const check: Statement[] =
        body.length === 0 ? [] : [js`const ${d}=${value};`, `let ${o}=true;`, ...body, ifThen(`!${o}`, `${ok}=false;`)];
      loop.push(ifThen(`${re}.test(${k})`, block('', [`m${k}=true;`, ...mark(k), ...check])));
    }
    if (additional !== undefined) {
      const guard = keys.length > 0 || patterns.length > 0 ? `!m${k}` : undefined;
      if (additional === false) {
        const report = `${ok}=$r(E,${where},"additionalProperties",${k});`;
        loop.push(guard === undefined ? report : ifThen(guard, report));
      } else {
        const body = this.node(additional, d, childExpr(path, k, true), ok, UNTRACKED);
        const inner = [...mark(k), ...(body.length === 0 ? [] : [js`const ${d}=${value};`, ...body])];
        if (guard === undefined) loop.push(...inner);
        else loop.push(ifThen(guard, block('', inner)));
      }
    }
    code.push(block(js`for(const ${k} in ${data})`, loop));
    return code;
  }

  /** `unevaluatedProperties`/`unevaluatedItems` run last, over what nothing else evaluated. */
  #unevaluated(s: Schema, data: Code, path: Path, ok: string, own: Tracking, outer: Tracking): Statement[] {
    const code: Statement[] = [];
    const where = pathCode(path);
    if (s['unevaluatedProperties'] !== undefined && own.props !== undefined) {
      const k = this.variable('k');
      const d = this.variable('d');
      const rest = s['unevaluatedProperties'] as SchemaNode;
      const body =
        rest === false
          ? [`${ok}=$r(E,${where},"unevaluatedProperties",${k});`]
          : [js`const ${d}=${data}[${k}];`, ...this.node(rest, d, childExpr(path, k, true), ok, UNTRACKED)];
      const inner: Statement[] = [block(js`for(const ${k} in ${data})`, [ifThen(`!${own.props}.has(${k})`, block('', body))])];
      if (outer.props !== undefined) inner.push(js`for(const ${k} in ${data})${outer.props}.add(${k});`);
      code.push(ifThen(TYPE_CHECK['object']!(data), block('', inner)));
    }
    if (s['unevaluatedItems'] !== undefined && own.items !== undefined) {
      const i = this.variable('i');
      const d = this.variable('d');
      const t = own.items;
      const rest = s['unevaluatedItems'] as SchemaNode;
      const body =
        rest === false
          ? [`${ok}=$r(E,${where},"unevaluatedItems",${i});`]
          : [js`const ${d}=${data}[${i}];`, ...this.node(rest, d, childExpr(path, i, false), ok, UNTRACKED)];
      const loop = block(js`for(let ${i}=${t}.n;${i}<${data}.length;${i}++)`, [ifThen(`!${t}.s||!${t}.s.has(${i})`, block('', body))]);
      code.push(ifThen(js`Array.isArray(${data})&&!${t}.a`, block('', [loop])));
      if (outer.items !== undefined) code.push(`${outer.items}.a=true;`);
    }
    return code;
  }
}

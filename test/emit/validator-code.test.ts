// Validator code as structure (generator/emit/validator-code.ts): how each statement is spelled
// and laid out, decided from the structure as it is built; and variables read inline, which are
// references until written, so a property named like a generated variable stays itself.
import { validatorRuntime } from '@keiyaku/runtime/codegen-v1';
import type { ContractModel } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { block, guarded, ifThen, js, type Statement, text, uses, Variable, writeStatements } from '../../generator/emit/validator-code.js';
import { buildValidators } from '../../generator/emit/validators.js';
import { CodeWriter } from '../../generator/emit/writer.js';

const written = (statements: readonly Statement[]): string => {
  const writer = new CodeWriter('\t');
  writeStatements(writer, statements);
  return writer.text();
};

describe('validator statements', () => {
  const cases: [string, Statement[], string][] = [
    ['a simple statement', ['ok=false;'], 'ok=false;\n'],
    ['an if', [ifThen('a', 'x;')], 'if(a)x;\n'],
    ['an if with else on one line', [ifThen('a', 'x;', 'y;')], 'if(a)x;else y;\n'],
    ['an else if chain', [ifThen('a', 'x;', ifThen('b', 'y;'))], 'if(a)x;else if(b)y;\n'],
    ['an else block', [ifThen('a', 'x;', block('', ['y;', 'z;']))], 'if(a)x;else{\n\ty;\n\tz;\n}\n'],
    ['a braced if with else', [ifThen('a', block('', ['x;']), 'y;')], 'if(a){\n\tx;\n}else y;\n'],
    [
      'a loop in a bare block',
      [block('', ['let n=0;', block('for(const k in d)', ['n++;'])])],
      '{\n\tlet n=0;\n\tfor(const k in d){\n\t\tn++;\n\t}\n}\n',
    ],
    ['an empty block', [ifThen('a', block('', []))], 'if(a){\n}\n'],
  ];
  it.each(cases)('%s', (_name, statements, expected) => {
    expect(written(statements)).toBe(expected);
  });

  const guards: [string, Statement[], string][] = [
    ['one if merges into the condition', [ifThen('b', 'x;')], 'if(a&&b)x;\n'],
    ['a condition with || is parenthesised', [ifThen('b||c', 'x;')], 'if(a&&(b||c))x;\n'],
    ['an if of an if merges', [ifThen('b', ifThen('c', 'x;'))], 'if(a&&b)if(c)x;\n'],
    ['an else chain goes unbraced', [ifThen('b', 'x;', ifThen('c', 'y;'))], 'if(a)if(b)x;else if(c)y;\n'],
    ['an if with a plain else is braced', [ifThen('b', 'x;', 'y;')], 'if(a){\n\tif(b)x;else y;\n}\n'],
    ['two statements are braced', ['x;', 'y;'], 'if(a){\n\tx;\n\ty;\n}\n'],
    ['an object literal is braced', [ifThen('b', { kind: 'literal', code: 'x({});' })], 'if(a){\n\tif(b)x({});\n}\n'],
    ['nothing guards nothing', [], ''],
  ];
  it.each(guards)('guarded: %s', (_name, body, expected) => {
    expect(written(guarded('a', body))).toBe(expected);
  });

  it('writes a variable by its name, or inline once decided, and counts its uses', () => {
    const d = new Variable('d1');
    const inner = new Variable('d2');
    inner.inline = js`${d}.b`;
    const body: Statement[] = [ifThen(js`typeof ${d}!=="string"`, js`f(${d});`), js`g(${inner});`];
    expect(uses(body, d)).toBe(3);
    expect(written(body)).toBe('if(typeof d1!=="string")f(d1);\ng(d1.b);\n');
    d.inline = 'x.a';
    expect(written(body)).toBe('if(typeof x.a!=="string")f(x.a);\ng(x.a.b);\n');
    expect(text(js`${d}===${'"d1"'}`)).toBe('x.a==="d1"');
  });

  it('refuses a variable or fragment written into plain text', () => {
    const d = new Variable('d1');
    expect(() => `${d}`).toThrow(/interpolated as text/);
    expect(() => `${js`${d}`}`).toThrow(/interpolated as text/);
  });
});

describe('validators with properties named like generated variables', () => {
  it('read the property, not a rewritten name', () => {
    const schemas = {
      P: {
        name: 'P',
        schema: {
          type: 'object',
          properties: { a: { type: 'object', properties: { d1: { type: 'string' }, k1: { enum: ['d1', 'k1'] } } } },
        },
      },
    };
    const { code } = buildValidators({ schemas } as unknown as ContractModel, ['P']);
    const body = code.replace(/^import .*$/m, '').replace(/^export const /gm, 'exports.');
    const exports: Record<string, (value: unknown) => boolean> = {};
    new Function('validatorRuntime', 'exports', body)(validatorRuntime, exports);
    const valid = exports['validateP']!;
    expect(code).toContain('d.a.d1');
    expect(valid({ a: { d1: 'x', k1: 'd1' } })).toBe(true);
    expect(valid({ a: { d1: 5 } })).toBe(false);
    expect(valid({ a: { k1: 'x' } })).toBe(false);
  });
});

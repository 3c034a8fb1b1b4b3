// A contract full of hostile names and text must still produce code that compiles
// (see typecheck.test.ts) and does exactly what the schema says.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { _2fast, Break, Class, Class2, Constructor, channels, dispatchClass, EvenementRecu } from './fixtures/hostile/expected/index.js';
import { fixturesDir } from './helpers.js';

const valid = {
  '*/ evil': 'x',
  'with "quotes"': 'say "hi"',
  class: 1,
  default: '*/ ${x}',
} as const;

describe('hostile contract', () => {
  it('keeps hostile names as data, not code', () => {
    expect(Break.type).toBe('*/ break');
    expect(_2fast.type).toBe('2fast');
    expect(Constructor.type).toBe('constructor');
    expect(EvenementRecu.type).toBe('événement.reçu');
    expect(Class.id).toBe('class');
    expect(Class2.id).toBe('Class');
    expect(channels.map((c) => c.id)).toEqual(['class', 'Class', 'tšékʏ ünïcödé']);
  });

  it('builds addresses with quotes, backticks and template syntax verbatim', () => {
    expect(Class.address({ id: '42' })).toBe('evil.`$(x)`.42.\'"\\n');
  });

  it('validates properties whose names are comment terminators, quotes, reserved words and newlines', () => {
    const message = Break.create({ ...valid, 'new\nline': true, '': 'empty' });
    expect(message['*/ evil']).toBe('x');
    expect(Break.validate({ ...valid, 'with "quotes"': 'nope' })[0]?.path).toBe('$["with \\"quotes\\""]');
    expect(Break.validate({ 'with "quotes"': "it's", class: 1, default: '' })[0]).toMatchObject({
      keyword: 'required',
      path: '$["*/ evil"]',
    });
    expect(Break.validate({ ...valid, 'new\nline': 'yes' })[0]?.path).toBe('$["new\\nline"]');
    for (const value of ["it's", 'say "hi"', '`${tick}`', 'back\\slash', '*/']) {
      expect(Break.validate({ ...valid, 'with "quotes"': value })).toEqual([]);
    }
  });

  it('handles unicode property names, enum values and patterns', () => {
    expect(EvenementRecu.validate({ 名前: '東京', 'emoji 🎉': '🎉🎉' })).toEqual([]);
    expect(EvenementRecu.validate({ 名前: '\u0000nul' })).toEqual([]);
    expect(EvenementRecu.validate({ 名前: '大阪' })[0]?.keyword).toBe('enum');
    expect(EvenementRecu.validate({ 名前: '東京', 'emoji 🎉': 'x' })[0]?.keyword).toBe('pattern');
  });

  it('treats a const of "*/" and mutual recursion through reserved-word names correctly', () => {
    expect(Constructor.validate({ type: '*/', Interface: { again: { type: '*/' } } })).toEqual([]);
    expect(Constructor.validate({ type: '*/', Interface: { again: { type: 'x' } } })[0]?.path).toBe('$.Interface.again.type');
  });

  it('dispatches on hostile type names', () => {
    const out = dispatchClass(_2fast.create({ '123': 1 }), { '*/ break': () => 'break', '2fast': (m) => `fast ${m['123']}` });
    expect(out).toBe('fast 1');
  });

  it('never lets contract text end a comment or open a template', () => {
    // Comments and quoted strings removed in one left-to-right pass, as a tokenizer would: a comment
    // that contract text ended early leaves the rest of it, and its real `*/`, behind as code.
    const code = (text: string): string =>
      text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/gm, (token) =>
        token.startsWith('/') ? '' : token[0]!.repeat(2),
      );
    expect(code('const a = \'*/ /*\'; /* c */ f("//");')).toBe('const a = \'\';  f("");');
    expect(code('/** a */ b */ x;')).toContain('*/');
    const expected = join(fixturesDir, 'hostile', 'expected');
    for (const file of ['types.ts', 'messages.ts', 'channels/class.ts', 'index.ts']) {
      const rest = code(readFileSync(join(expected, file), 'utf8'));
      // Outside comments and quoted strings there is no comment end, template literal or injected statement.
      expect(rest).not.toContain('*/');
      expect(rest).not.toContain('`');
      expect(rest).not.toContain('process.exit');
      expect(rest).not.toContain('hacked');
    }
  });
});

/**
 * Validator code as structure: statements, `if`s and blocks, built by generator/emit/validators.ts
 * and written through a {@link CodeWriter}. How a statement is spelled (`if(a&&b)x;` for an `if`
 * around a one-statement `if`, braces or not) is decided as it is built, from the structure, and
 * a variable's final spelling (a property read inline, or a `const`) is a reference in the code
 * until it is decided, so no pass reads the generated text back.
 */
import type { CodeWriter } from './writer.js';

/**
 * A variable of the generated code whose spelling is decided after the code that uses it is
 * built: its name, or the expression it stands for when that is read inline instead.
 */
export class Variable {
  /** The expression written in place of the variable, once decided. */
  inline: Code | undefined;

  constructor(readonly name: string) {}

  toString(): never {
    throw new Error(`validator code: variable ${this.name} interpolated as text; build code with js\`…\``);
  }
}

/** Code with {@link Variable}s in it, kept as references until it is written. */
export class Fragment {
  constructor(readonly parts: readonly (string | Variable)[]) {}

  toString(): never {
    throw new Error('validator code: fragment interpolated as text; build code with js`…`');
  }
}

/** A piece of JavaScript: plain text, or a {@link Fragment} when a {@link Variable} is in it. */
export type Code = string | Fragment;

/** `if(cond)then`, with `else` when given: `then` and `else` are one statement each (a {@link Block} for more). */
export interface If {
  readonly kind: 'if';
  readonly cond: Code;
  readonly then: Statement;
  readonly else?: Statement | undefined;
}

/** `head{body}`: a bare block (`head` empty), a loop, or the braced body of an `if`. */
export interface Block {
  readonly kind: 'block';
  readonly head: Code;
  readonly body: readonly Statement[];
}

/** A statement with an object literal in it (an `enum` of objects): never written without braces around it. */
export interface Literal {
  readonly kind: 'literal';
  readonly code: Code;
}

/** One statement: a simple one (ending in `;`), an `if` or a block. */
export type Statement = Code | If | Block | Literal;

/** Code from a template: plain text unless a {@link Variable} or {@link Fragment} is interpolated. */
export function js(strings: TemplateStringsArray, ...values: readonly (Code | Variable | number)[]): Code {
  let plain = true;
  for (const value of values) if (typeof value === 'object') plain = false;
  if (plain) {
    let text = strings[0]!;
    for (let i = 0; i < values.length; i++) text += `${values[i] as string | number}${strings[i + 1]!}`;
    return text;
  }
  const parts: (string | Variable)[] = [];
  add(parts, strings[0]!);
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (value instanceof Fragment) for (const part of value.parts) add(parts, part);
    else add(parts, typeof value === 'number' ? String(value) : value);
    add(parts, strings[i + 1]!);
  }
  return new Fragment(parts);
}

function add(parts: (string | Variable)[], part: string | Variable): void {
  if (typeof part !== 'string') parts.push(part);
  else if (part !== '') {
    const last = parts.length - 1;
    if (typeof parts[last] === 'string') parts[last] += part;
    else parts.push(part);
  }
}

/** `codes` joined by `separator`. */
export function joinCode(codes: readonly Code[], separator: string): Code {
  if (codes.every((c) => typeof c === 'string')) return codes.join(separator);
  const parts: (string | Variable)[] = [];
  codes.forEach((code, i) => {
    if (i > 0) add(parts, separator);
    if (typeof code === 'string') add(parts, code);
    else for (const part of code.parts) add(parts, part);
  });
  return new Fragment(parts);
}

/** The text of `code` as written now (variables by their decided spelling, or their name). */
export function text(code: Code): string {
  if (typeof code === 'string') return code;
  let out = '';
  for (const part of code.parts) out += typeof part === 'string' ? part : part.inline === undefined ? part.name : text(part.inline);
  return out;
}

export function ifThen(cond: Code, then: Statement, otherwise?: Statement): If {
  return otherwise === undefined ? { kind: 'if', cond, then } : { kind: 'if', cond, then, else: otherwise };
}

export function block(head: Code, body: readonly Statement[]): Block {
  return { kind: 'block', head, body };
}

/** A condition with `||` in it, parenthesised to stand in an `&&`. */
export function parenthesize(condition: Code): Code {
  return text(condition).includes('||') ? js`(${condition})` : condition;
}

/** A simple statement (not an `if`, not a block), without an object literal. */
function isPlain(statement: Statement): statement is Code {
  return typeof statement === 'string' || statement instanceof Fragment;
}

/** `if(c)s;` with one statement and no block or else (the statement may be such an `if` itself). */
export function isSingleIf(statement: Statement): statement is If {
  return (
    !isPlain(statement) &&
    statement.kind === 'if' &&
    statement.else === undefined &&
    (isPlain(statement.then) || isSingleIf(statement.then))
  );
}

/** `if(c)s;else if(c2)s2;…` without blocks: one statement. */
function isIfElseChain(statement: Statement): boolean {
  return (
    !isPlain(statement) && statement.kind === 'if' && statement.else !== undefined && isPlain(statement.then) && chainTail(statement.else)
  );
}

function chainTail(statement: Statement): boolean {
  return isSingleIf(statement) || isIfElseChain(statement);
}

/**
 * `if(condition){body}`, written `if(condition&&inner)statement` when the body is one `if`
 * without braces or else (most property checks), which keeps validators small.
 */
export function guarded(condition: Code, body: readonly Statement[]): Statement[] {
  if (body.length === 0) return [];
  if (body.length === 1) {
    const only = body[0]!;
    if (isSingleIf(only)) return [ifThen(js`${condition}&&${parenthesize(only.cond)}`, only.then)];
    // `if(a)if(b)x;else y;`: the else belongs to the inner if, as meant.
    if (isIfElseChain(only)) return [ifThen(condition, only)];
  }
  return [ifThen(condition, block('', body))];
}

/** How many times `variable` is written in `statements` (inside the spelling of variables read inline too). */
export function uses(statements: readonly Statement[], variable: Variable): number {
  let count = 0;
  const inCode = (code: Code): void => {
    if (typeof code === 'string') return;
    for (const part of code.parts) {
      if (part === variable) count++;
      else if (typeof part !== 'string' && part.inline !== undefined) inCode(part.inline);
    }
  };
  const visit = (statement: Statement): void => {
    if (isPlain(statement)) inCode(statement);
    else if (statement.kind === 'literal') inCode(statement.code);
    else if (statement.kind === 'block') {
      inCode(statement.head);
      for (const inner of statement.body) visit(inner);
    } else {
      inCode(statement.cond);
      visit(statement.then);
      if (statement.else !== undefined) visit(statement.else);
    }
  };
  for (const statement of statements) visit(statement);
  return count;
}

/** Writes `statements` one per line; a block's body a level deeper, its `}` on a line of its own (`}else…` continues it). */
export function writeStatements(writer: CodeWriter, statements: readonly Statement[]): void {
  for (const statement of statements) writer.line(write(writer, statement, ''));
}

/** Writes all lines of `statement` but its last, which it returns (after `prefix`) for the caller to end or continue. */
function write(writer: CodeWriter, statement: Statement, prefix: string): string {
  if (isPlain(statement)) return `${prefix}${text(statement)}`;
  switch (statement.kind) {
    case 'literal':
      return `${prefix}${text(statement.code)}`;
    case 'block':
      writer.line(`${prefix}${text(statement.head)}{`);
      writer.indent(() => writeStatements(writer, statement.body));
      return '}';
    case 'if': {
      const last = write(writer, statement.then, `${prefix}if(${text(statement.cond)})`);
      if (statement.else === undefined) return last;
      const bare = !isPlain(statement.else) && statement.else.kind === 'block' && statement.else.head === '';
      return write(writer, statement.else, bare ? `${last}else` : `${last}else `);
    }
  }
}

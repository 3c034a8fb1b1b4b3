/** The contract headers of one message: validated, and converted between their typed and their wire form. */
import { type ContractDecodeError, ContractValidationError, fail, type ValidationIssue } from './errors.js';
import { escapePointerToken, pointerToPath, type StandaloneValidator, toIssues } from './issues.js';

/**
 * The headers schema of one message as `generate` emits it. On the wire every header is a
 * string: a property whose schema is a string travels as is, the others (`json`) as JSON text.
 */
export interface HeadersDefinition {
  /** The properties the schema declares, in schema order. */
  readonly names: readonly string[];
  /** The declared properties whose values are not strings: JSON text on the wire. */
  readonly json?: readonly string[];
  readonly validate: StandaloneValidator;
}

/** Validates and converts one message's contract headers between their typed and their wire form. */
export interface HeadersCodec {
  readonly names: readonly string[];
  /** Issues of `headers` against the headers schema; empty when valid. */
  validate(headers: unknown): readonly ValidationIssue[];
  /**
   * Validates `headers` and returns their wire form; throws {@link ContractValidationError} naming the header.
   * Headers the schema does not declare travel as given (strings only).
   */
  encode(headers: unknown): Record<string, string>;
  /** The declared headers of a record, validated; an error naming the header when they do not satisfy the schema. Never throws. */
  decode(
    wire: Readonly<Record<string, string>>,
  ): { readonly ok: true; readonly value: Readonly<Record<string, unknown>> } | { readonly ok: false; readonly error: ContractDecodeError };
}

function headerIssuesMessage(type: string, issues: readonly ValidationIssue[]): string {
  const first = issues[0];
  const name =
    first === undefined || first.pointer === '' ? undefined : first.pointer.slice(1).split('/')[0]!.replace(/~1/g, '/').replace(/~0/g, '~');
  return `${type}: header ${name === undefined ? '(all)' : JSON.stringify(name)} is not valid: ${first?.message ?? 'rejected by its schema'}`;
}
/** @internal The headers codec of message `type`. */
export function defineHeaders(type: string, definition: HeadersDefinition): HeadersCodec {
  const { validate } = definition;
  const names = Object.freeze([...definition.names]);
  const json = new Set(definition.json ?? []);
  const declared = new Set(names);
  const check = (value: unknown): readonly ValidationIssue[] => (validate(value) ? [] : toIssues(validate.errors));
  // Paths name the header: `headers.correlationId`.
  const headerIssues = (issues: readonly ValidationIssue[]): ValidationIssue[] =>
    issues.map((i) => ({ ...i, path: `headers${i.path.slice(1)}` }));
  // Most messages carry none of the declared headers: whether that satisfies the schema is
  // decided once (validation is a pure function of the value), not per message.
  const none: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null));
  const decodedNone = Object.freeze({ ok: true as const, value: none });
  let noneValid: boolean | undefined;
  const noneIsValid = (): boolean => (noneValid ??= validate(none) === true);
  return Object.freeze({
    names,
    validate: check,
    encode(headers: unknown): Record<string, string> {
      if (headers === undefined && noneIsValid()) return {};
      const value = headers ?? {};
      const issues = check(value);
      if (issues.length > 0) throw new ContractValidationError(type, headerIssues(issues));
      const wire: Record<string, string> = {};
      for (const name of Object.keys(value as object)) {
        const v = (value as Record<string, unknown>)[name];
        if (v === undefined) continue;
        let text: string;
        if (declared.has(name)) text = json.has(name) ? JSON.stringify(v) : String(v);
        else if (typeof v === 'string')
          text = v; // a header the contract does not declare travels as given
        else {
          const pointer = `/${escapePointerToken(name)}`;
          throw new ContractValidationError(type, [
            {
              pointer,
              path: `headers${pointerToPath(pointer).slice(1)}`,
              keyword: 'type',
              message: 'a header the contract does not declare must be a string',
            },
          ]);
        }
        // A header named __proto__ stays a header (an assignment would try to set the prototype).
        if (name === '__proto__') Object.defineProperty(wire, name, { value: text, enumerable: true, writable: true, configurable: true });
        else wire[name] = text;
      }
      return wire;
    },
    decode(wire: Readonly<Record<string, string>>) {
      let present = false;
      for (let i = 0; i < names.length && !present; i++) present = Object.hasOwn(wire, names[i]!);
      if (!present && noneIsValid()) return decodedNone;
      // No prototype: a declared header named `__proto__` stays a plain property.
      const value: Record<string, unknown> = Object.create(null);
      for (const name of names) {
        if (!Object.hasOwn(wire, name)) continue;
        const raw = wire[name]!;
        if (!json.has(name)) {
          value[name] = raw;
          continue;
        }
        try {
          value[name] = JSON.parse(raw);
        } catch (cause) {
          const pointer = `/${escapePointerToken(name)}`;
          const issues: ValidationIssue[] = [
            { pointer, path: `headers${pointerToPath(pointer).slice(1)}`, keyword: 'type', message: 'is not JSON' },
          ];
          return fail('headers', type, `${type}: header ${JSON.stringify(name)} is not valid: is not JSON`, issues, cause);
        }
      }
      if (!validate(value)) {
        const issues = toIssues(validate.errors);
        return fail('headers', type, headerIssuesMessage(type, issues), headerIssues(issues));
      }
      return { ok: true as const, value: Object.freeze(value) };
    },
  });
}

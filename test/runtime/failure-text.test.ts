// How a failure is worded for logs, health and parked records: every issue of a decode error,
// bounded, and the allowed values of a failed enum.
import { ContractDecodeError, MAX_VALIDATION_ERRORS, type StandaloneValidatorError, validatorRuntime } from '@keiyaku/runtime/codegen-v1';
import { describe, expect, it } from 'vitest';
import { failureMessage, failureText, MAX_ISSUE_TEXT } from '../../runtime/core/failure-text.js';

const issue = (path: string, message: string) => ({ pointer: '', path, keyword: 'type', message });

describe('failure text', () => {
  it('names every issue after the one the message summarises', () => {
    const error = new ContractDecodeError('schema', 'Job', 'Job: payload is not valid at $.a: must be string', [
      issue('$.a', 'must be string'),
      issue('$.b', 'must be integer'),
      issue('$.c[0]', 'must be >= 0'),
    ]);
    expect(failureText(error)).toBe(
      'ContractDecodeError: Job: payload is not valid at $.a: must be string; also at $.b: must be integer; at $.c[0]: must be >= 0',
    );
    expect(failureMessage(error)).toBe(
      'Job: payload is not valid at $.a: must be string; also at $.b: must be integer; at $.c[0]: must be >= 0',
    );
  });

  it('leaves errors with one issue or none as they are', () => {
    expect(failureText(new TypeError('no shelf'))).toBe('TypeError: no shelf');
    expect(failureText('a string')).toBe('a string');
    const one = new ContractDecodeError('schema', 'Job', 'Job: payload is not valid at $.a: must be string', [
      issue('$.a', 'must be string'),
    ]);
    expect(failureMessage(one)).toBe('Job: payload is not valid at $.a: must be string');
  });

  it('is bounded: at most MAX_VALIDATION_ERRORS issues, each cut', () => {
    const issues = Array.from({ length: 50 }, (_, i) => issue(`$.k${i}`, 'x'.repeat(1_000)));
    const text = failureMessage(new ContractDecodeError('schema', 'Job', 'Job: not valid', issues));
    const parts = text.split('; ');
    expect(parts).toHaveLength(MAX_VALIDATION_ERRORS);
    for (const part of parts.slice(1)) expect(part.replace(/^also /, '').length).toBeLessThanOrEqual(MAX_ISSUE_TEXT);
  });

  it('lists the allowed values of a failed enum, bounded', () => {
    const errors: StandaloneValidatorError[] = [];
    validatorRuntime.report(errors, '/channel', 'enum', ['desk', 'self-service', 'app']);
    validatorRuntime.report(errors, '/code', 'enum', [...Array.from({ length: 12 }, (_, i) => i), 'y'.repeat(100)]);
    expect(errors.map((e) => e.message)).toEqual([
      'must be equal to one of the allowed values: "desk", "self-service", "app"',
      'must be equal to one of the allowed values: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … (3 more)',
    ]);
    const long: StandaloneValidatorError[] = [];
    validatorRuntime.report(long, '', 'enum', [null, 'z'.repeat(100)]);
    expect(long[0]!.message).toBe(`must be equal to one of the allowed values: null, "${'z'.repeat(58)}…`);
  });
});

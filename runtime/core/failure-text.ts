/**
 * How the belt words a failure for the people who read it (logs, health, parked records): an
 * error that carries validation issues (a `ContractDecodeError`, a `ContractValidationError`)
 * names every issue, not only the first its message summarises. Bounded: at most
 * {@link MAX_VALIDATION_ERRORS} issues (as validation collects them), each cut to
 * {@link MAX_ISSUE_TEXT} characters.
 */
import { MAX_VALIDATION_ERRORS, type ValidationIssue } from './contract.js';

/** Longest text of one issue in a failure message. */
export const MAX_ISSUE_TEXT = 300;

function issuesOf(error: unknown): readonly ValidationIssue[] {
  const issues = (error as { issues?: unknown } | null | undefined)?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.filter(
    (i): i is ValidationIssue => typeof i === 'object' && i !== null && typeof i.path === 'string' && typeof i.message === 'string',
  );
}

function cut(text: string): string {
  return text.length > MAX_ISSUE_TEXT ? `${text.slice(0, MAX_ISSUE_TEXT - 1)}…` : text;
}

/**
 * The error's message, followed by every further issue it carries:
 * `BookBorrowed: payload is not valid at $.copyId: must NOT have fewer than 1 characters; also at $.dueAt: must match format "date-time"`.
 * The first issue is the one the message already names.
 */
export function failureMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const issues = issuesOf(error).slice(0, MAX_VALIDATION_ERRORS);
  if (issues.length < 2) return message;
  const more = issues.slice(1).map((i) => cut(`at ${i.path}: ${i.message}`));
  return `${message}; also ${more.join('; ')}`;
}

/** `Name: message` with every issue (see {@link failureMessage}). */
export function failureText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${failureMessage(error)}` : failureMessage(error);
}

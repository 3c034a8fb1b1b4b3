#!/usr/bin/env node
// The size budget of the library sources (issue 24): no file over 600 lines, no function over 100.
// A longer function passes when its opening comment (the JSDoc or comment before it, or the first
// comment in its body) says why, after the marker `Long because:`; a longer file passes only when
// ALLOWED below names it with a reason. Run by `npm run lint` and CI.
//
// Usage: node scripts/check-sizes.mjs [dir...]   (default: generator runtime, relative to the working
// directory). Skipped: dist/, node_modules/, *.generated.ts and *.d.ts (generated), and
// runtime/testing/, the conformance suites the runtime ships: test suites, held to the test code's
// rules, not the library's.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 100;
const REASON_MARKER = 'Long because:';
const SKIPPED_DIRS = new Set(['dist', 'node_modules']);
const SKIPPED_PATHS = ['runtime/testing/'];

/** Files over the limit that stay whole, with the reason. Keep it short. */
const ALLOWED = {};

/**
 * Today's offenders in files being split in other changes of issue 24: each passes (its length and its
 * functions) until that change lands. Remove an entry once its file is within the budget; the checker
 * names entries that no longer need to be here.
 */
const PENDING = {};

const dirs = process.argv.slice(2);
const roots = dirs.length > 0 ? dirs : ['generator', 'runtime'];
const cwd = process.cwd();

/** Every .ts source under `dir`, as a path relative to the working directory with `/` separators. */
function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) out.push(...sources(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.generated.ts') && !entry.name.endsWith('.d.ts')) {
      const rel = relative(cwd, path).split(sep).join('/');
      if (!SKIPPED_PATHS.some((skipped) => rel.startsWith(skipped))) out.push(rel);
    }
  }
  return out;
}

/** The name a reader would look for: the declared name, else the variable or property it is assigned to. */
function nameOf(node) {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name) || ts.isStringLiteral(node.name))) {
    return node.name.text;
  }
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) {
    if (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name)) return parent.name.text;
  }
  return '<anonymous>';
}

/** The node whose leading comments introduce the function: the statement or property that holds it. */
function anchorOf(node) {
  let anchor = node;
  while (
    anchor.parent &&
    (ts.isVariableDeclaration(anchor.parent) ||
      ts.isVariableDeclarationList(anchor.parent) ||
      ts.isVariableStatement(anchor.parent) ||
      ts.isPropertyAssignment(anchor.parent) ||
      ts.isPropertyDeclaration(anchor.parent) ||
      ts.isExportAssignment(anchor.parent) ||
      ts.isParenthesizedExpression(anchor.parent) ||
      ts.isAsExpression(anchor.parent) ||
      ts.isSatisfiesExpression(anchor.parent))
  ) {
    anchor = anchor.parent;
  }
  return anchor;
}

/** The text of the comments that open the function: before it, and the first ones inside its body. */
function openingComment(node, text) {
  const anchor = anchorOf(node);
  const ranges = [...(ts.getLeadingCommentRanges(text, anchor.getFullStart()) ?? [])];
  const body = node.body;
  if (body && ts.isBlock(body)) {
    const first = body.statements[0];
    const at = first ? first.getFullStart() : body.getStart() + 1;
    ranges.push(...(ts.getLeadingCommentRanges(text, at) ?? []));
  }
  return ranges.map((range) => text.slice(range.pos, range.end)).join('\n');
}

function isFunctionLike(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The functions of one file over the limit without a reason, as messages. */
function longFunctions(path, text) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const visit = (node) => {
    if (isFunctionLike(node) && node.body) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_FUNCTION_LINES && !openingComment(node, text).includes(REASON_MARKER)) {
        found.push(
          `${path}:${start + 1} ${nameOf(node)} (${lines} lines): split it or give the reason ('${REASON_MARKER} …' in its opening comment)`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const problems = [];
const seen = new Set();
for (const root of roots) {
  for (const path of sources(root)) {
    seen.add(path);
    if (PENDING[path]) continue;
    const text = readFileSync(path, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES && !ALLOWED[path]) {
      problems.push(`${path}:1 file (${lines} lines): split it or give the reason (ALLOWED in scripts/check-sizes.mjs)`);
    }
    problems.push(...longFunctions(path, text));
  }
}

// Entries that no longer hold anything back: a note, not a failure, so a split landing before the
// entry's removal does not break the build.
for (const path of [...Object.keys(PENDING), ...Object.keys(ALLOWED)]) {
  if (!seen.has(path)) continue;
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines <= MAX_FILE_LINES && (ALLOWED[path] || longFunctions(path, text).length === 0)) {
    process.stderr.write(`note: ${path} is within the budget now: remove it from the lists in scripts/check-sizes.mjs\n`);
  }
}

if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.stderr.write(
    `${problems.length} over the size budget (files ${MAX_FILE_LINES} lines, functions ${MAX_FUNCTION_LINES}): split them, or say why in the code\n`,
  );
  process.exit(1);
}

/**
 * `keiyaku scaffold mapper`: writes a mapper from a domain event union to a channel's
 * contract, one `case` per domain event variant, each returning null until filled in.
 * Run again after adding domain events: it adds the missing cases and leaves everything
 * else in the file exactly as it was. It never overwrites user code.
 *
 * The domain event union is read with ts-morph (the TypeScript compiler), so aliases,
 * interfaces and imported variants all resolve.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, posix, relative, resolve } from 'node:path';
import { Node, Project, type SwitchStatement, SyntaxKind, type Type } from 'ts-morph';
import { KeiyakuError } from '../errors.js';
import { camelCase } from '../model/identifiers.js';

export class ScaffoldError extends KeiyakuError {
  override readonly name = 'ScaffoldError';
  readonly file: string;

  constructor(file: string, message: string) {
    super('scaffold_failed', message);
    this.file = file;
  }
}

export interface MapperScaffoldOptions {
  /** File that declares the domain event union. */
  readonly eventsFile: string;
  /** Name of the exported union type (`BookEvent`). */
  readonly eventType: string;
  /** Channel identifier in generated code (`BookIntegrationEvents`); the target is `<it>Message`. */
  readonly channelIdentifier: string;
  /** The generated folder (its index.ts is imported). */
  readonly generatedDir: string;
  /** The mapper file to create or complete. */
  readonly outFile: string;
  readonly cwd: string;
}

export interface MapperScaffoldResult {
  readonly path: string;
  /** The new content, or undefined when the file already has every case. */
  readonly content: string | undefined;
  readonly created: boolean;
  /** Variant names that got a new case. */
  readonly added: readonly string[];
  readonly discriminant: string;
}

interface Union {
  readonly discriminant: string;
  readonly variants: readonly string[];
}

const PREFERRED_DISCRIMINANTS = ['type', 'kind', 'eventType', '_tag', '__typename'];

function literalOf(type: Type): string | undefined {
  return type.isStringLiteral() ? (type.getLiteralValue() as string) : undefined;
}

function readUnion(options: MapperScaffoldOptions): Union {
  const file = resolve(options.cwd, options.eventsFile);
  if (!existsSync(file)) throw new ScaffoldError(file, `domain events file ${options.eventsFile} does not exist`);
  const project = new Project({ skipAddingFilesFromTsConfig: true, compilerOptions: { strict: true, allowJs: false } });
  const source = project.addSourceFileAtPath(file);
  project.resolveSourceFileDependencies();
  const declaration = source.getTypeAlias(options.eventType) ?? source.getInterface(options.eventType);
  if (declaration === undefined) {
    const names = [...source.getTypeAliases(), ...source.getInterfaces()].map((d) => d.getName());
    throw new ScaffoldError(
      file,
      `${options.eventsFile} declares no type ${options.eventType}${names.length > 0 ? ` (it declares ${names.join(', ')})` : ''}`,
    );
  }
  const type = declaration.getType();
  const members = type.isUnion() ? type.getUnionTypes() : [type];
  const candidates = new Map<string, string[]>();
  for (const member of members) {
    for (const property of member.getProperties()) {
      const propertyType = property.getTypeAtLocation(declaration);
      const literal = literalOf(propertyType);
      if (literal === undefined) continue;
      candidates.set(property.getName(), [...(candidates.get(property.getName()) ?? []), literal]);
    }
  }
  const complete = [...candidates.entries()].filter(
    ([, values]) => values.length === members.length && new Set(values).size === values.length,
  );
  if (complete.length === 0) {
    throw new ScaffoldError(
      file,
      `${options.eventType} is not a discriminated union: give every variant a property with a distinct string literal type, e.g. \`readonly type: 'BookBorrowed'\``,
    );
  }
  complete.sort((a, b) => {
    const rank = (name: string): number =>
      PREFERRED_DISCRIMINANTS.includes(name) ? PREFERRED_DISCRIMINANTS.indexOf(name) : PREFERRED_DISCRIMINANTS.length;
    return rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]);
  });
  const [discriminant, variants] = complete[0]!;
  return { discriminant, variants };
}

function importPath(fromFile: string, target: string): string {
  let path = relative(dirname(fromFile), target).split('\\').join('/');
  if (!path.startsWith('.')) path = `./${path}`;
  return path.replace(/\.tsx?$/, '.js');
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

function caseClause(variant: string): string {
  return `case ${quote(variant)}:
        // TODO: return a contract message (a generated factory's create(...)), withHeaders(message, headers) when its
        // contract headers ask for values, or null to keep ${variant.replace(/\s+/g, ' ')} internal.
        return null;`;
}

function fresh(options: MapperScaffoldOptions, union: Union, outFile: string): string {
  const target = `${options.channelIdentifier}Message`;
  const generated = importPath(outFile, posix.join(resolve(options.cwd, options.generatedDir), 'index.ts'));
  const events = importPath(outFile, resolve(options.cwd, options.eventsFile));
  const name = `${camelCase(options.eventType) || 'domainEvent'}Mapper`;
  return `/**
 * ${options.eventType} (domain events, private to this context) → the public contract of ${options.channelIdentifier}.
 * Scaffolded by \`keiyaku scaffold mapper\`; this file is yours. Return null to keep an event internal, and
 * withHeaders(message, headers) (from @keiyaku/runtime) for a message whose contract headers ask for values.
 * Run the scaffold again after adding domain events: it adds the missing cases and changes nothing else.
 */
import type { EventMapper, EventMapperContext, Mapped } from '@keiyaku/runtime';
import type { ${target} } from '${generated}';
import type { ${options.eventType} } from '${events}';

export const ${name}: EventMapper<${options.eventType}, ${target}> = {
  map(event: ${options.eventType}, context: EventMapperContext): Mapped<${target}> {
    void context;
    switch (event.${union.discriminant}) {
      ${union.variants.map(caseClause).join('\n      ')}
      default: {
        const unhandled: never = event;
        throw new Error(\`no mapping for \${JSON.stringify(unhandled)}\`);
      }
    }
  },
};
`;
}

function findSwitch(project: Project, file: string, text: string, discriminant: string): SwitchStatement | undefined {
  const source = project.createSourceFile(file, text, { overwrite: true });
  return source.getDescendantsOfKind(SyntaxKind.SwitchStatement).find((s) => {
    const expression = s.getExpression();
    return Node.isPropertyAccessExpression(expression) && expression.getName() === discriminant;
  });
}

/** Plans the mapper file: created, completed with missing cases, or left alone. Writes nothing. */
export function scaffoldMapper(options: MapperScaffoldOptions): MapperScaffoldResult {
  const union = readUnion(options);
  const outFile = resolve(options.cwd, options.outFile);
  if (!existsSync(outFile)) {
    return {
      path: outFile,
      content: fresh(options, union, outFile),
      created: true,
      added: [...union.variants],
      discriminant: union.discriminant,
    };
  }
  const original = readFileSync(outFile, 'utf8');
  const project = new Project({ skipAddingFilesFromTsConfig: true });
  const statement = findSwitch(project, outFile, original, union.discriminant);
  if (statement === undefined) {
    throw new ScaffoldError(
      outFile,
      `${options.outFile} exists but has no \`switch (event.${union.discriminant})\`; keiyaku will not rewrite it. Add the cases by hand, or move it aside to scaffold anew.`,
    );
  }
  const present = new Set(
    statement
      .getClauses()
      .flatMap((clause) => (Node.isCaseClause(clause) ? [clause.getExpression()] : []))
      .flatMap((expression) =>
        Node.isStringLiteral(expression) || Node.isNoSubstitutionTemplateLiteral(expression) ? [expression.getLiteralValue()] : [],
      ),
  );
  const missing = union.variants.filter((v) => !present.has(v));
  if (missing.length === 0) return { path: outFile, content: undefined, created: false, added: [], discriminant: union.discriminant };
  // Insert the new cases as text just before `default:` (or the closing brace), leaving the rest byte for byte.
  const clauses = statement.getClauses();
  const defaultClause = clauses.find((c) => Node.isDefaultClause(c));
  const anchor = defaultClause?.getStart() ?? statement.getCaseBlock().getEnd() - 1;
  const lineStart = original.lastIndexOf('\n', anchor - 1) + 1;
  const before = original.slice(lineStart, anchor);
  const firstClause = clauses[0]?.getStart();
  const clauseIndent = firstClause === undefined ? '      ' : original.slice(original.lastIndexOf('\n', firstClause - 1) + 1, firstClause);
  const indent = /^\s*$/.test(clauseIndent) ? clauseIndent : '      ';
  const insertion = missing.map((v) => `${indent}${caseClause(v).replace(/\n {8}/g, `\n${indent}  `)}\n`).join('');
  // At the start of the `default:` line when it has only indentation before it; else on a line of its own.
  const at = /^\s*$/.test(before) ? lineStart : anchor;
  const glue = /^\s*$/.test(before) ? '' : '\n';
  const content = `${original.slice(0, at)}${glue}${insertion}${original.slice(at)}`;
  return { path: outFile, content, created: false, added: missing, discriminant: union.discriminant };
}

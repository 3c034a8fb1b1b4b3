import * as prettier from 'prettier';

const OPTIONS: prettier.Options = { printWidth: 120, singleQuote: false, trailingComma: 'all', endOfLine: 'lf' };

/** Formats generated source; a syntax error here is a generator bug, reported with the file. */
export async function formatSource(path: string, content: string): Promise<string> {
  const parser = path.endsWith('.json') ? 'json' : 'typescript';
  return prettier.format(content, { ...OPTIONS, parser });
}

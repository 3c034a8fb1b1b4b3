/**
 * The Handlebars templates in `templates/`. They receive resolved names and pre-escaped
 * text only (see the view models in `emit.ts`): no logic beyond loops and conditionals.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import { packageRoot } from '../package-root.js';

export type TemplateName = 'types.ts' | 'messages.ts' | 'channel.ts' | 'index.ts' | 'iggy.ts';

export interface Templates {
  render(name: TemplateName, view: object): string;
}

const loaded = new Map<string, Templates>();

/** Loads and compiles the templates once per process (watch mode generates again and again). */
export function loadTemplates(dir = join(packageRoot(), 'templates')): Templates {
  let templates = loaded.get(dir);
  if (templates === undefined) {
    templates = compileTemplates(dir);
    loaded.set(dir, templates);
  }
  return templates;
}

function compileTemplates(dir: string): Templates {
  const hb = Handlebars.create();
  hb.registerPartial('header', readFileSync(join(dir, 'header.hbs'), 'utf8'));
  const compiled = new Map<TemplateName, Handlebars.TemplateDelegate>();
  return {
    render(name, view) {
      let template = compiled.get(name);
      if (template === undefined) {
        template = hb.compile(readFileSync(join(dir, `${name}.hbs`), 'utf8'), { noEscape: true, strict: true });
        compiled.set(name, template);
      }
      return template(view);
    },
  };
}

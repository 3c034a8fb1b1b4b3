/**
 * The Handlebars templates of `templates/`, precompiled into `templates.generated.ts` at build
 * time (scripts/bundle-templates.mjs) and rendered with handlebars' runtime: nothing is read from
 * disk. They receive resolved names and pre-escaped text only (see the view models in
 * `emit.ts`): no logic beyond loops and conditionals.
 */
import type HandlebarsApi from 'handlebars';
import HandlebarsRuntime from 'handlebars/runtime.js';
import { KeiyakuError } from '../errors.js';
import { TEMPLATE_SPECS } from './templates.generated.js';

export type TemplateName = 'types.ts' | 'messages.ts' | 'channel.ts' | 'index.ts' | 'iggy.ts' | 'request-reply.ts';

export interface Templates {
  render(name: TemplateName, view: object): string;
}

// handlebars' runtime build is the full API minus the compiler; its own typings declare nothing.
const Handlebars = HandlebarsRuntime as unknown as typeof HandlebarsApi;

type TemplateSpec = Parameters<typeof Handlebars.template>[0];

let loaded: Templates | undefined;

/** The templates, instantiated once per process (watch mode generates again and again). */
export function loadTemplates(): Templates {
  if (loaded === undefined) {
    const hb = Handlebars.create();
    const spec = (name: string): TemplateSpec => {
      const found = TEMPLATE_SPECS[name];
      if (found === undefined)
        throw new KeiyakuError('template_missing', `template ${name} is not bundled with keiyaku; the installation is incomplete`);
      return found as TemplateSpec;
    };
    hb.registerPartial('header', hb.template(spec('header')));
    const compiled = new Map<TemplateName, ReturnType<typeof Handlebars.template>>();
    loaded = {
      render(name, view) {
        let template = compiled.get(name);
        if (template === undefined) {
          template = hb.template(spec(name));
          compiled.set(name, template);
        }
        return template(view);
      },
    };
  }
  return loaded;
}

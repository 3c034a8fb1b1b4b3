/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: families with
 * HELP and TYPE, label values escaped, histograms as cumulative `_bucket`/`_sum`/`_count`.
 * keiyaku reads its figures from the host at scrape time, so it needs no registry and no
 * client library.
 *
 * @see https://prometheus.io/docs/instrumenting/exposition_formats/
 */
import { KeiyakuError } from '../core/errors.js';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type Labels = Readonly<Record<string, string | number>>;

type MetricType = 'counter' | 'gauge' | 'histogram';

interface Family {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly lines: string[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label value with backslash, double quote and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value: integers as such, `+Inf`/`-Inf`/`NaN` spelled the Prometheus way. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

function labelText(labels: Labels | undefined, extra?: readonly [string, string]): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(labels ?? {})) {
    if (!LABEL.test(name) || name.startsWith('__'))
      throw new KeiyakuError('invalid_metric', `invalid Prometheus label name ${JSON.stringify(name)}`);
    parts.push(`${name}="${escapeLabelValue(String(value))}"`);
  }
  if (extra) parts.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** Collects families and renders them in the order they were first declared. */
export class Exposition {
  readonly #families = new Map<string, Family>();

  #family(name: string, type: MetricType, help: string): Family {
    if (!NAME.test(name)) throw new KeiyakuError('invalid_metric', `invalid Prometheus metric name ${JSON.stringify(name)}`);
    let family = this.#families.get(name);
    if (family === undefined) {
      family = { name, type, help, lines: [] };
      this.#families.set(name, family);
    } else if (family.type !== type) {
      throw new KeiyakuError('invalid_metric', `metric ${name} declared as ${family.type} and as ${type}`);
    }
    return family;
  }

  /** Declares a family even when it gets no samples (so HELP/TYPE show what exists). */
  declare(name: string, type: MetricType, help: string): this {
    this.#family(name, type, help);
    return this;
  }

  counter(name: string, help: string, labels: Labels | undefined, value: number): this {
    this.#family(name, 'counter', help).lines.push(`${name}${labelText(labels)} ${formatValue(value)}`);
    return this;
  }

  gauge(name: string, help: string, labels: Labels | undefined, value: number): this {
    this.#family(name, 'gauge', help).lines.push(`${name}${labelText(labels)} ${formatValue(value)}`);
    return this;
  }

  /** `counts` per bucket (not cumulative) with one overflow entry after the bounds. */
  histogram(
    name: string,
    help: string,
    labels: Labels | undefined,
    snapshot: { readonly bounds: readonly number[]; readonly counts: readonly number[]; readonly sum: number; readonly count: number },
  ): this {
    const family = this.#family(name, 'histogram', help);
    let cumulative = 0;
    snapshot.bounds.forEach((bound, i) => {
      cumulative += snapshot.counts[i] ?? 0;
      family.lines.push(`${name}_bucket${labelText(labels, ['le', formatValue(bound)])} ${cumulative}`);
    });
    family.lines.push(`${name}_bucket${labelText(labels, ['le', '+Inf'])} ${snapshot.count}`);
    family.lines.push(`${name}_sum${labelText(labels)} ${formatValue(snapshot.sum)}`);
    family.lines.push(`${name}_count${labelText(labels)} ${snapshot.count}`);
    return this;
  }

  render(): string {
    let out = '';
    for (const family of this.#families.values()) {
      out += `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`;
      for (const line of family.lines) out += `${line}\n`;
    }
    return out;
  }
}

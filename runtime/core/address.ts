/**
 * Concrete addresses of channels. A channel with parameters (`payments.{region}.requests`)
 * gets its address from typed parameter values, checked against the contract's parameter
 * rules (present, a non-empty string without `{`/`}`, one of the `enum`, matching the
 * `pattern`); a channel without parameters has exactly one address.
 */
import { KeiyakuError } from './errors.js';
import type { Logger } from './logger.js';

/** What addressing reads of a channel descriptor. */
export interface AddressedChannel {
  readonly id: string;
  /** The address, or a function of the channel parameters when the address has any. */
  readonly address: string | ((params: never) => string);
  /** The address template exactly as in the contract (`lights.{streetlightId}.on`). */
  readonly addressTemplate: string;
  readonly parameters: readonly string[];
  readonly parameterRules?: Readonly<Record<string, ParameterRule>>;
}

/** What the contract says about the values of one channel parameter. */
export interface ParameterRule {
  /** Allowed values. */
  readonly enum?: readonly string[];
  /** A regular expression (ECMA-262, unanchored as in JSON Schema) the value must match. */
  readonly pattern?: string;
}

/** The parameter values of a channel whose address is `A` (never when the address is fixed). */
export type ParametersOfAddress<A> = A extends (params: infer P) => string ? P : never;

/** A parameter value that does not fit the contract, or an address that is not the channel's. */
export class ChannelAddressError extends KeiyakuError {
  override readonly name = 'ChannelAddressError';
  readonly channel: string;
  /** The parameter at fault, when one is. */
  readonly parameter: string | undefined;
  readonly value: unknown;

  constructor(
    code: 'parameter_invalid' | 'address_mismatch' | 'address_override',
    channel: string,
    message: string,
    fields: { parameter?: string; value?: unknown } = {},
  ) {
    super(code, message);
    this.channel = channel;
    this.parameter = fields.parameter;
    this.value = fields.value;
  }
}

/**
 * Checks `params` against the channel's parameters and rules.
 * @throws ChannelAddressError `parameter_invalid` naming the parameter, the value and what is allowed.
 */
export function checkParameters(
  channel: {
    readonly id: string;
    readonly parameters: readonly string[];
    readonly parameterRules?: Readonly<Record<string, ParameterRule>>;
  },
  params: unknown,
): void {
  const values = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  for (const name of channel.parameters) {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    const fail = (why: string): never => {
      throw new ChannelAddressError('parameter_invalid', channel.id, `channel ${channel.id}: parameter ${name} ${why}`, {
        parameter: name,
        value,
      });
    };
    if (value === undefined) fail('is missing');
    if (typeof value !== 'string') fail(`must be a string, got ${value === null ? 'null' : typeof value}`);
    const text = value as string;
    if (text === '') fail('must not be empty');
    if (/[{}]/.test(text)) fail(`must not contain { or }: ${JSON.stringify(text)}`);
    const rule = channel.parameterRules?.[name];
    if (rule?.enum !== undefined && !rule.enum.includes(text))
      fail(`must be one of ${rule.enum.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(text)}`);
    if (rule?.pattern !== undefined && !new RegExp(rule.pattern, 'u').test(text))
      fail(`must match /${rule.pattern}/, got ${JSON.stringify(text)}`);
  }
}

/** The parameter values in `address` when it fits the channel's template, else undefined. */
export function parseAddress(
  channel: Pick<AddressedChannel, 'addressTemplate' | 'parameters'>,
  address: string,
): Record<string, string> | undefined {
  const names: string[] = [];
  let source = '^';
  let last = 0;
  for (const match of channel.addressTemplate.matchAll(/\{([^}]*)\}/g)) {
    source += escapeRegExp(channel.addressTemplate.slice(last, match.index));
    source += '(.+?)';
    names.push(match[1]!);
    last = match.index + match[0].length;
  }
  source += `${escapeRegExp(channel.addressTemplate.slice(last))}$`;
  const found = new RegExp(source, 's').exec(address);
  if (!found) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, found[i + 1]!]));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** How a publisher or subscription names its address. */
export interface AddressChoice {
  /** Parameter values of a channel with parameters. */
  readonly parameters?: unknown;
  /**
   * A concrete address. Deprecated on a channel with parameters (pass `parameters`; it is
   * still accepted when it fits the channel's template and parameter rules). Refused on a
   * channel without parameters unless `forceAddress` is set.
   */
  readonly address?: string;
  /** Send to / read from `address` although the channel has an address of its own. */
  readonly forceAddress?: boolean;
}

/**
 * The concrete address of `channel` for `choice`, or undefined when the channel has
 * parameters and none were chosen (a publisher then takes them per message).
 *
 * @throws ChannelAddressError on a bad parameter, an address that does not fit the template, or an override refused.
 */
export function chooseAddress(channel: AddressedChannel, choice: AddressChoice, logger?: Logger): string | undefined {
  const parameterized = typeof channel.address === 'function';
  if (choice.parameters !== undefined) {
    if (!parameterized)
      throw new ChannelAddressError(
        'parameter_invalid',
        channel.id,
        `channel ${channel.id} has no parameters (its address is ${channel.addressTemplate}); leave parameters out`,
      );
    if (choice.address !== undefined)
      throw new ChannelAddressError('address_override', channel.id, `channel ${channel.id}: give parameters or address, not both`);
    return addressOf(channel, choice.parameters);
  }
  if (choice.address === undefined) return parameterized ? undefined : (channel.address as string);
  if (!parameterized) {
    if (choice.address === channel.address || choice.forceAddress === true) return choice.address;
    throw new ChannelAddressError(
      'address_override',
      channel.id,
      `channel ${channel.id} has the fixed address ${channel.addressTemplate}; refusing to use ${JSON.stringify(choice.address)} ` +
        'instead (set forceAddress: true to override it on purpose)',
    );
  }
  if (choice.forceAddress === true) return choice.address;
  const params = parseAddress(channel, choice.address);
  if (params === undefined)
    throw new ChannelAddressError(
      'address_mismatch',
      channel.id,
      `channel ${channel.id}: address ${JSON.stringify(choice.address)} does not fit its template ${channel.addressTemplate}; pass parameters instead`,
      { value: choice.address },
    );
  const address = addressOf(channel, params);
  logger?.warn('the address option of a channel with parameters is deprecated; pass parameters instead', {
    channel: channel.id,
    address,
    parameters: params,
  });
  return address;
}

/** The address of a channel with parameters for `params`, checked. */
export function addressOf(channel: AddressedChannel, params: unknown): string {
  // Generated descriptors check their parameters inside address(); descriptors of an older
  // keiyaku do not, so check here as well (cheap, and the same rules).
  checkParameters(channel, params);
  return (channel.address as (params: unknown) => string)(params);
}

/**
 * The concrete address of `channel`: for a subscription, which needs one.
 * @throws KeiyakuError `address_required` for a channel with parameters and no choice.
 */
export function resolveAddress(channel: AddressedChannel, choice: AddressChoice | string | undefined = {}, logger?: Logger): string {
  const address = chooseAddress(channel, typeof choice === 'string' ? { address: choice } : choice, logger);
  if (address !== undefined) return address;
  throw new KeiyakuError(
    'address_required',
    `channel ${channel.id} has parameters (${channel.addressTemplate}): pass parameters: { ${channel.parameters.map((p) => `${p}: …`).join(', ')} }`,
  );
}

/**
 * Channel objects: the identifier of each channel in generated code, its address and the
 * parameters the address uses, its Kafka and Iggy bindings, its own `x-keiyaku` mode, and the
 * roles the contract's operations give it.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#channelObject
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#parameterObject
 */
import type { Diagnostic } from '../diagnostics.js';
import type { ContractChannel } from '../load/document.js';
import { iggyChannelBinding } from './bindings/iggy.js';
import { kafkaChannelBinding } from './bindings/kafka.js';
import { allocateIdentifier, type ModelContext, optional, type Part, pointerOf } from './context.js';
import type { ChannelBindings, ChannelModel, ChannelParameter, OperationModel } from './contract-model.js';
import { ownCompatibility } from './extensions.js';
import { pascalCase, safeIdentifier } from './identifiers.js';

/** Names generated code declares for each channel besides its base identifier: `<Base><suffix>`, `<prefix><Base>`. */
const CHANNEL_FAMILY = {
  suffixes: ['', 'Message', 'MessageType', 'Handler', 'BatchHandler', 'Parameters', 'Cases', 'Iggy'],
  prefixes: ['dispatch'],
} as const;

/** Where the channel was written: the parser's pointer, else its place under `channels`. */
export function channelPointer(channel: ContractChannel): string {
  return pointerOf(channel) ?? `/channels/${channel.id()}`;
}

/** The base identifier of a channel in generated code (`BookIntegrationEvents`), its whole family free. */
export function channelIdentifier(channel: ContractChannel, context: ModelContext): Part<string> {
  const wanted = safeIdentifier(pascalCase(channel.id()), 'Channel');
  return allocateIdentifier(context, `channel "${channel.id()}"`, wanted, CHANNEL_FAMILY, () => context.locate(channelPointer(channel)));
}

/** A channel's parameters: enum, default and pattern from the parameter itself (3.x) or its schema (2.x). */
export function channelParameters(channel: ContractChannel): ChannelParameter[] {
  return channel
    .parameters()
    .all()
    .map((p): ChannelParameter => {
      const json = p.json() as Record<string, unknown>;
      const schema = p.hasSchema() ? (p.schema()?.json() as Record<string, unknown> | undefined) : undefined;
      const values = (json['enum'] ?? schema?.['enum']) as unknown[] | undefined;
      const fallback = json['default'] ?? schema?.['default'];
      return {
        name: p.id(),
        ...optional('description', p.description()),
        ...optional('enum', Array.isArray(values) ? values.map(String) : undefined),
        ...optional('default', fallback === undefined ? undefined : String(fallback)),
        ...optional('pattern', typeof schema?.['pattern'] === 'string' ? schema['pattern'] : undefined),
        ...optional('location', p.location()),
      };
    });
}

/** The Kafka and Iggy bindings of a channel (the Iggy extension checked first). */
function channelBindings(channel: ContractChannel, pointer: string, context: ModelContext): Part<ChannelBindings> {
  const iggy = iggyChannelBinding(channel, pointer, context);
  const kafka = kafkaChannelBinding(channel, pointer, context);
  const part: ChannelBindings = { ...optional('kafka', kafka.part), ...optional('iggy', iggy.part) };
  return { part, diagnostics: [...iggy.diagnostics, ...kafka.diagnostics] };
}

/**
 * The model of a channel, given its `identifier` and the message types it carries. A placeholder
 * of the address (`{id}`) without a parameter of that name is an error.
 */
export function channelObject(
  channel: ContractChannel,
  context: ModelContext,
  given: { readonly identifier: string; readonly messages: readonly string[] },
): Part<ChannelModel> {
  const diagnostics: Diagnostic[] = [];
  const pointer = channelPointer(channel);
  const address = channel.address() ?? channel.id();
  const parameters = channelParameters(channel);
  for (const placeholder of address.matchAll(/\{([^}]*)\}/g)) {
    if (!parameters.some((p) => p.name === placeholder[1])) {
      diagnostics.push({
        severity: 'error',
        code: 'parameter_undeclared',
        message: `channel "${channel.id()}" address "${address}" uses {${placeholder[1]}} but declares no such parameter`,
        hint: `add \`parameters: { ${placeholder[1]}: {} }\` to the channel`,
        location: context.locate(pointer, ['address']),
      });
    }
  }
  const bindings = channelBindings(channel, pointer, context);
  diagnostics.push(...bindings.diagnostics);
  const compatibility = ownCompatibility(channel.extensions().get('x-keiyaku')?.value(), `channel "${channel.id()}"`, (...path) =>
    context.locate(pointer, ['x-keiyaku', ...path]),
  );
  diagnostics.push(...compatibility.diagnostics);
  const part: ChannelModel = {
    id: channel.id(),
    identifier: given.identifier,
    address,
    ...optional('title', (channel.json() as { title?: string }).title),
    ...optional('description', channel.description()),
    parameters,
    messages: given.messages,
    bindings: bindings.part,
    ...optional('compatibility', compatibility.part),
    location: context.locate(pointer),
  };
  return { part, diagnostics };
}

/**
 * `channel` with the roles the contract's `operations` give it (empty when none uses it). The
 * reply channel of an operation takes the reverse action: who sends the request receives the
 * reply (`getBook (reply)`), who receives it sends the reply.
 */
export function withRoles(channel: ChannelModel, operations: readonly OperationModel[]): ChannelModel {
  const roles = operations.flatMap((op) => {
    const name = op.id || `${op.action} operation`;
    const own = op.channel === channel.id ? [{ action: op.action, operation: name }] : [];
    if (op.reply?.channel !== channel.id) return own;
    return [...own, { action: op.action === 'send' ? ('receive' as const) : ('send' as const), operation: `${name} (reply)` }];
  });
  return { ...channel, roles };
}

/**
 * Apache Iggy has no AsyncAPI binding: a channel names its stream, topic and partition count in
 * the `x-iggy` extension. Anything but an object there is a located error.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#specificationExtensions
 */
import type { Diagnostic } from '../../diagnostics.js';
import type { ContractChannel } from '../../load/document.js';
import { type ModelContext, optional, type Part, positiveInt } from '../context.js';
import type { IggyChannelBinding } from '../contract-model.js';

/** The `x-iggy` binding of a channel whose pointer is `pointer`, or undefined when it has none. */
export function iggyChannelBinding(channel: ContractChannel, pointer: string, context: ModelContext): Part<IggyChannelBinding | undefined> {
  const iggy = channel.extensions().get('x-iggy')?.value() as Record<string, unknown> | undefined;
  const diagnostics: Diagnostic[] = [];
  if (iggy !== undefined && (typeof iggy !== 'object' || iggy === null)) {
    diagnostics.push({
      severity: 'error',
      code: 'iggy_extension_invalid',
      message: `x-iggy of channel "${channel.id()}" must be an object`,
      hint: 'write `x-iggy: { stream: <name>, topic: <name>, partitions: <n> }`',
      location: context.locate(pointer),
    });
  }
  if (!iggy || typeof iggy !== 'object') return { part: undefined, diagnostics };
  const part: IggyChannelBinding = {
    ...optional('stream', typeof iggy['stream'] === 'string' ? iggy['stream'] : undefined),
    ...optional('topic', typeof iggy['topic'] === 'string' ? iggy['topic'] : undefined),
    ...optional('partitions', positiveInt(iggy['partitions'])),
  };
  return { part, diagnostics };
}

// How `show` prints a payload: as text or JSON when it is textual; an Avro or Protobuf payload
// decoded with the codec of its channel in the contract (--spec, else the default contract, when
// there is one); else its bytes as base64, labelled. Never binary bytes as text.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type PayloadView, payloadText, payloadView } from '@keiyaku/runtime';
import type { Options } from './options.js';
import type { DeadItem } from './sources.js';

/** The payload of `item` as `show` prints it; the contract is read only for a payload that is not textual. */
export async function showPayload(o: Options, cwd: string, item: DeadItem): Promise<PayloadView> {
  const plain = payloadView(item, { bytes: 'base64' });
  // Text, or bytes that are not UTF-8 of a textual (or unnamed) content type: no contract decodes those.
  if (plain.kind === 'json' || plain.kind === 'text' || plain.note === 'not UTF-8') return plain;
  if (!existsSync(resolve(cwd, o.spec)))
    return { ...plain, note: `${plain.note ?? 'bytes'}; pass the contract with --spec to decode them` };
  const { compileContract } = await import('../../index.js');
  const compiled = await compileContract(o.spec, { cwd });
  const model = compiled.model;
  if (model === undefined)
    return { ...plain, note: `${plain.note ?? 'bytes'}; ${o.spec} is not a valid contract, so they are not decoded` };
  const { contractChannels } = await import('../contract-channels.js');
  const { contractCodecs } = await import('../payload-codecs.js');
  const codecs = await contractCodecs(model);
  const channels = contractChannels(model, codecs.codecOf);
  const channel = channels.get(item.channel) ?? channels.get(model.channels.find((c) => c.identifier === item.channel)?.id ?? '');
  if (channel === undefined) return { ...plain, note: `${plain.note ?? 'bytes'}; ${o.spec} has no channel ${item.channel}` };
  const view = payloadView(item, { bytes: 'base64', channel });
  if (view.kind === 'decoded' || codecs.missing.length === 0) return view;
  return { ...view, note: `${view.note ?? 'bytes'}; ${codecs.missing.join('; ')}` };
}

/** `payload: …` (a textual payload as it is), `payload (avro, decoded): …`, `payload (base64, application/avro bytes; …): …`. */
export function payloadLines(view: PayloadView, item: DeadItem): string[] {
  if (view.kind === 'json' || view.kind === 'text') return [`payload: ${payloadText(item) ?? view.text}`];
  if (view.kind === 'decoded') return [`payload (${view.format ?? 'binary'}, decoded):`, view.text];
  return [`payload (${view.kind}${view.note === undefined ? '' : `, ${view.note}`}): ${view.text}`];
}

/**
 * Turning a decoded reply frame into a payload or an error (fact sheet §1.4): an eviction
 * is terminal; a non-zero status is an error with an empty body; result-framed operations
 * (the internal band 64..127 — a CreateTopic is answered as CreateTopicWithAssignments, 64 —,
 * metadata ops 128..149 except 138, 161, 162, and Register with a body) start with
 * `[count u32]{index u32, result u32}*`, where a non-empty section is a committed rejection.
 */
import { describeEviction, IggyError } from '../errors.js';
import { Reader } from '../wire.js';
import type { DecodedFrame } from './header.js';
import { Operation } from './header.js';

export function isResultFramed(operation: number, bodyLength: number): boolean {
  if (operation >= 64 && operation < 128) return true;
  if (operation >= 128 && operation <= 149) return operation !== 138;
  if (operation === 161 || operation === 162) return true;
  return operation === Operation.Register && bodyLength > 0;
}

/** The payload of a successful reply; throws {@link IggyError} for evictions, statuses and rejections. */
export function payloadOf(frame: DecodedFrame, command: string): Uint8Array {
  if (frame.kind === 'eviction') {
    const eviction = describeEviction(frame.reason);
    throw new IggyError(eviction.code, command, { detail: `evicted by the server (${eviction.name})` });
  }
  if (frame.kind !== 'reply') throw new IggyError(3, command, { detail: 'expected a reply frame' });
  if (frame.status !== 0) throw new IggyError(frame.status, command);
  if (!isResultFramed(frame.operation, frame.body.length)) return frame.body;
  const r = new Reader(frame.body);
  const count = r.u32('result count');
  if (count > 0) {
    r.u32('result index');
    throw new IggyError(r.u32('result code'), command, { detail: 'rejected by the server' });
  }
  return frame.body.subarray(4);
}

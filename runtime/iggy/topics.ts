/**
 * Making sure a stream and topic exist (created where allowed, an "already exists" race counted
 * as success): what the high-level publisher and the transport share before they send.
 */
import type { IggyClient } from './client.js';
import { IggyError } from './protocol/errors.js';
import type { Identifier } from './protocol/primitives.js';
import type { TopicInfo } from './protocol/version.js';

/** Lets a creation that lost a race to another client pass ("already exists"). */
export function unlessExists(status: number): (error: unknown) => void {
  return (error) => {
    if (!(error instanceof IggyError && error.status === status)) throw error;
  };
}

/**
 * The topic, after creating the stream and topic where `create` allows it (only names can be
 * created: a numeric identifier is the server's to assign). Missing and not creatable: 1009 / 2010.
 */
export async function ensureTopic(
  client: IggyClient,
  stream: Identifier,
  topic: Identifier,
  create: { readonly stream: boolean; readonly topic: boolean; readonly partitions: number },
  command: string,
): Promise<TopicInfo> {
  if ((await client.getStream(stream)) === undefined) {
    if (!create.stream || typeof stream !== 'string') throw new IggyError(1009, command, { stream: String(stream) });
    await client.createStream(stream).catch(unlessExists(1012));
  }
  let info = await client.getTopic(stream, topic);
  if (info === undefined) {
    if (!create.topic || typeof topic !== 'string') throw new IggyError(2010, command, { stream: String(stream), topic: String(topic) });
    await client.createTopic(stream, topic, create.partitions).catch(unlessExists(2013));
    info = await client.getTopic(stream, topic);
    if (info === undefined) throw new IggyError(2010, command, { stream: String(stream), topic: String(topic) });
  }
  return info;
}

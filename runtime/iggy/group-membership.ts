/**
 * One client's membership of a consumer group, held across reconnects: what the high-level
 * consumer and the transport's consumers share.
 */
import type { IggyClient } from './client.js';
import { IggyError } from './protocol/errors.js';
import type { Identifier } from './protocol/primitives.js';
import { unlessExists } from './topics.js';

/**
 * One client's membership of a consumer group. The server ties membership to the client's
 * login, so {@link refresh} joins (and syncs) again whenever the client logged in anew since the
 * last join, or after {@link invalidate}; {@link sync} joins again when the server says this
 * client is not a member (evicted). With `joins` false, membership is managed elsewhere and
 * this only reads the assignment.
 */
export class GroupMembership {
  readonly client: IggyClient;
  readonly stream: Identifier;
  readonly topic: Identifier;
  readonly group: Identifier;
  readonly joins: boolean;
  /** The partitions the server assigned at the last sync. */
  partitions: readonly number[] = [];
  #joinedAt = -1;
  #joinedBefore = false;

  constructor(client: IggyClient, stream: Identifier, topic: Identifier, group: Identifier, joins = true) {
    this.client = client;
    this.stream = stream;
    this.topic = topic;
    this.group = group;
    this.joins = joins;
  }

  /** Creates the group when missing and `create` allows it (a group addressed by number needs `name`); missing otherwise: 5000. */
  async ensure(create: boolean, name: string | undefined, command: string): Promise<void> {
    if ((await this.client.getConsumerGroup(this.stream, this.topic, this.group)) !== undefined) return;
    const groupName = typeof this.group === 'string' ? this.group : name;
    if (!create || groupName === undefined) throw new IggyError(5000, command, { stream: String(this.stream), topic: String(this.topic) });
    await this.client.createConsumerGroup(this.stream, this.topic, groupName).catch(unlessExists(5004));
  }

  /** Joins and syncs unless that was done at the client's current login; true when it did. */
  async refresh(): Promise<boolean> {
    if (this.#joinedAt === this.client.generation) return false;
    if (this.joins) {
      await this.client.joinConsumerGroup(this.stream, this.topic, this.group);
      if (this.#joinedBefore) this.client.logger.info('iggy: joined the consumer group again', this.#fields());
      this.#joinedBefore = true;
    }
    this.#joinedAt = this.client.generation;
    await this.sync();
    return true;
  }

  /** Reads the assignment; a client that is no longer a member joins again first. */
  async sync(): Promise<readonly number[]> {
    let reply = await this.client.syncConsumerGroup(this.stream, this.topic, this.group);
    if (reply === undefined && this.joins) {
      this.client.logger.warn('iggy: this client is no longer a member of the consumer group; joining again', this.#fields());
      await this.client.joinConsumerGroup(this.stream, this.topic, this.group);
      reply = await this.client.syncConsumerGroup(this.stream, this.topic, this.group);
    }
    this.partitions = [...(reply?.partitions ?? [])];
    return this.partitions;
  }

  #fields(): Record<string, unknown> {
    return {
      stream: String(this.stream),
      topic: String(this.topic),
      group: String(this.group),
      clientId: String(this.client.connection.clientId),
      generation: this.client.generation,
    };
  }

  /** The next {@link refresh} joins and syncs again (after an error that may have cost the membership). */
  invalidate(): void {
    this.#joinedAt = -1;
  }

  /** Leaves the group if this membership joined it; errors are ignored (the connection may be gone). */
  async leave(): Promise<void> {
    if (this.joins) await this.client.leaveConsumerGroup(this.stream, this.topic, this.group).catch(() => undefined);
  }
}

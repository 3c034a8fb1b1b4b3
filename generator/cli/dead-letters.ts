/**
 * `keiyaku dead-letters list|show|redrive|remove`: operates on what a service set aside —
 * messages its subscriptions parked (the dead-letter store) and outbox rows that went dead
 * (the transactional outbox) — in a SQLite file or a PostgreSQL database.
 *
 * Every source of set-aside items implements {@link DeadSource}; ids carry their source
 * (`outbox:<row>` for outbox rows, the parked message's id otherwise), so one listing covers
 * both. Nothing is changed unless the action succeeds: redrive validates before it sends and
 * removes the parked record only after the broker acknowledged the republish.
 */
import { isKeiyakuError } from '../errors.js';
import { confirm, DEAD_LETTERS_USAGE, DeadLettersError, type DeadLettersIo, type Options, parse, reason } from './dead-letters/options.js';
import { describeItem, oneLine, table, toJson } from './dead-letters/output.js';
import { payloadLines, showPayload } from './dead-letters/payload.js';
import { redriveParked } from './dead-letters/redrive.js';
import {
  type DeadFilter,
  type DeadItem,
  type DeadSource,
  find,
  isDriverError,
  type OpenedStore,
  OutboxSource,
  openStore,
  type ParkedSource,
} from './dead-letters/sources.js';

export { DEAD_LETTERS_USAGE, DeadLettersError, type DeadLettersIo } from './dead-letters/options.js';
export type { DeadFilter, DeadItem, DeadSource } from './dead-letters/sources.js';

export async function runDeadLetters(argv: readonly string[], io: DeadLettersIo): Promise<number> {
  let options: Options | 'help';
  try {
    options = parse(argv, io.cwd);
  } catch (error) {
    io.stderr(`keiyaku: ${reason(error)}\n`);
    return 2;
  }
  if (options === 'help') {
    io.stdout(`${DEAD_LETTERS_USAGE}\n`);
    return 0;
  }
  const o = options;
  let opened: OpenedStore | undefined;
  try {
    opened = await openStore(o.store, io.cwd);
    if (o.action === 'list') return await list(o, io, opened);
    const { item, source } = await find(opened, o.id!);
    if (o.action === 'show') return await show(o, io, item);
    if (o.action === 'remove') return await remove(o, io, item, source);
    if (source instanceof OutboxSource) return await resetOutboxRow(o, io, item, source);
    return await redriveParked(o, io, (source as ParkedSource).store, item);
  } catch (error) {
    // Store and driver errors are the operator's to read; anything else is a bug (internal error).
    if (isKeiyakuError(error) || isDriverError(error)) return fail(o, io, error);
    throw error;
  } finally {
    await opened?.close();
  }
}

/** Reports an operator's error (JSON on stdout with --json, else one line on stderr); exit code 2. */
function fail(o: Options, io: DeadLettersIo, error: unknown): number {
  if (o.json)
    io.stdout(
      `${JSON.stringify({ ok: false, error: { code: (error as { code?: string }).code ?? 'failed', message: reason(error) } }, null, 2)}\n`,
    );
  else io.stderr(`keiyaku: ${reason(error)}\n`);
  return 2;
}

/** `list`: every source's items, oldest first, as a table or JSON. */
async function list(o: Options, io: DeadLettersIo, opened: OpenedStore): Promise<number> {
  const filter: DeadFilter = {
    ...(o.channel === undefined ? {} : { channel: o.channel }),
    ...(o.group === undefined ? {} : { groupId: o.group }),
  };
  const items = (await Promise.all(opened.sources.map((s) => s.list(filter)))).flat().sort((a, b) => a.at.getTime() - b.at.getTime());
  if (o.json) {
    io.stdout(
      `${JSON.stringify({ ok: true, store: opened.description, count: items.length, items: items.map((i) => toJson(i, false)) }, null, 2)}\n`,
    );
  } else if (items.length === 0) {
    io.stdout(`keiyaku: nothing parked or dead in ${opened.description}${o.channel || o.group ? ' matching the filter' : ''}\n`);
  } else {
    const rows = [
      ['ID', 'KIND', 'CHANNEL', 'GROUP', 'TYPE', 'ATTEMPTS', 'AT', 'ERROR'],
      ...items.map((i) => [
        i.id,
        i.kind,
        i.channel,
        i.groupId ?? '-',
        i.type || '-',
        String(i.attempts),
        i.at.toISOString(),
        oneLine(i.error),
      ]),
    ];
    io.stdout(`${table(rows)}\n${items.length} item${items.length === 1 ? '' : 's'} in ${opened.description}\n`);
  }
  return 0;
}

/**
 * `show`: one item in full: its fields, headers, payload (decoded with its channel's codec when it
 * is Avro or Protobuf and the contract is at hand, else base64 when it is not text) and stack.
 */
async function show(o: Options, io: DeadLettersIo, item: DeadItem): Promise<number> {
  const view = await showPayload(o, io.cwd, item);
  const json = toJson(item, true);
  if (o.json) {
    const decoded = view.kind === 'decoded' ? { payloadDecoded: JSON.parse(view.text) as unknown, payloadFormat: view.format } : {};
    const note = view.note === undefined ? {} : { payloadNote: view.note };
    io.stdout(`${JSON.stringify({ ok: true, item: { ...json, ...decoded, ...note } }, null, 2)}\n`);
    return 0;
  }
  const lines = Object.entries(json)
    .filter(([k]) => k !== 'headers' && k !== 'payload' && k !== 'payloadBase64' && k !== 'stack')
    .map(([k, v]) => `${k}: ${String(v)}`);
  lines.push('headers:', ...Object.entries(item.headers).map(([k, v]) => `  ${k}: ${v}`));
  lines.push(...payloadLines(view, item));
  if (typeof json['stack'] === 'string') lines.push('stack:', json['stack']);
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

/** `remove`: deletes one item for good, once confirmed. */
async function remove(o: Options, io: DeadLettersIo, item: DeadItem, source: DeadSource): Promise<number> {
  if (!(await confirm(io, o, `remove ${describeItem(item)} for good?`))) {
    io.stderr('keiyaku: not confirmed; nothing changed\n');
    return 1;
  }
  const removed = await source.remove(item);
  if (!removed) throw new DeadLettersError(`${item.id} was removed by someone else meanwhile; nothing changed`);
  if (o.json) io.stdout(`${JSON.stringify({ ok: true, removed: item.id }, null, 2)}\n`);
  else io.stdout(`keiyaku: removed ${describeItem(item)}\n`);
  return 0;
}

/** `redrive` of a dead outbox row: back to pending, once confirmed, for the dispatcher to publish. */
async function resetOutboxRow(o: Options, io: DeadLettersIo, item: DeadItem, source: OutboxSource): Promise<number> {
  if (!(await confirm(io, o, `put ${describeItem(item)} back to pending, so the dispatcher publishes it again?`))) {
    io.stderr('keiyaku: not confirmed; nothing changed\n');
    return 1;
  }
  if (!(await source.reset(item))) throw new DeadLettersError(`${item.id} is no longer dead (changed meanwhile); nothing changed`);
  if (o.json) io.stdout(`${JSON.stringify({ ok: true, redriven: item.id, how: 'reset to pending' }, null, 2)}\n`);
  else io.stdout(`keiyaku: ${item.id} is pending again; the outbox dispatcher will publish it\n`);
  return 0;
}

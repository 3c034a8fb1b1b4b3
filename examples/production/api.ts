/**
 * The service's HTTP API (plain `node:http`; any framework does the same):
 *
 *   POST /books/{bookId}/loans     {"copyId":"C-1","memberId":"M-1001","via":"desk"}   → 201, 409 when on loan,
 *                                  422 when the contract refuses the message
 *   POST /books/{bookId}/returns   {"copyId":"C-1","condition":"good","lateFee":{"cents":150,"currency":"GBP"}} → 200, 409
 *   GET  /late-fee-letters         the letters the subscription wrote
 *
 * The `x-request-id` header (or a new id) becomes the messages' correlation id.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isKeiyakuError, type Logger } from '@keiyaku/runtime';
import type { LateFeeLetters } from './late-fee-letters.js';
import { type LendingDesk, LoanConflict, type Return } from './lending-desk.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ROUTE = /^\/books\/([^/]+)\/(loans|returns)$/;
const MAX_BODY = 16 * 1024;

/** A request the API refuses with 400. */
class BadRequest extends Error {
  override readonly name = 'BadRequest';
}

export function createApi(desk: LendingDesk, letters: LateFeeLetters, logger: Logger): Server {
  return createServer((request, response) => {
    route(request, response, desk, letters).catch((error: unknown) => {
      if (error instanceof BadRequest) return reply(response, 400, { error: error.message });
      if (error instanceof LoanConflict) return reply(response, 409, { error: error.message });
      // The contract refused the message (a member id that is not a library card number, say):
      // the transaction rolled back, so neither the loan nor a message was stored.
      if (isKeiyakuError(error) && error.code === 'contract_invalid') return reply(response, 422, { error: error.message });
      logger.error('request failed', { method: request.method, url: request.url, error: String(error) });
      reply(response, 500, { error: 'internal error' });
    });
  });
}

async function route(request: IncomingMessage, response: ServerResponse, desk: LendingDesk, letters: LateFeeLetters): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (request.method === 'GET' && path === '/late-fee-letters') return reply(response, 200, await letters.letters());
  const match = ROUTE.exec(path);
  if (request.method !== 'POST' || match === null) return reply(response, 404, { error: 'not found' });
  const bookId = match[1]!;
  if (!UUID.test(bookId)) throw new BadRequest('the book id must be a UUID');
  const body = await readJson(request);
  const correlationId = request.headers['x-request-id']?.toString() || randomUUID();
  const copyId = text(body, 'copyId');
  if (match[2] === 'loans') {
    const via = body['via'] ?? 'desk';
    if (via !== 'desk' && via !== 'kiosk' && via !== 'app') throw new BadRequest('via must be desk, kiosk or app');
    await desk.borrow({ bookId, copyId, memberId: text(body, 'memberId'), via }, correlationId);
    return reply(response, 201, { bookId, copyId, correlationId });
  }
  const condition = body['condition'] ?? 'good';
  if (condition !== 'good' && condition !== 'worn' && condition !== 'damaged')
    throw new BadRequest('condition must be good, worn or damaged');
  await desk.giveBack({ bookId, copyId, condition, ...lateFeeOf(body['lateFee']) }, correlationId);
  return reply(response, 200, { bookId, copyId, correlationId });
}

function lateFeeOf(raw: unknown): Pick<Return, 'lateFee'> {
  if (raw === undefined) return {};
  const fee = (typeof raw === 'object' && raw !== null ? raw : {}) as { cents?: unknown; currency?: unknown };
  if (!Number.isInteger(fee.cents) || (fee.cents as number) <= 0 || typeof fee.currency !== 'string' || !/^[A-Z]{3}$/.test(fee.currency))
    throw new BadRequest('lateFee must be {"cents": a positive integer, "currency": three capital letters}');
  return { lateFee: { cents: fee.cents as number, currency: fee.currency } };
}

function text(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  if (typeof value !== 'string' || value === '') throw new BadRequest(`${key} must be a non-empty string`);
  return value;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const chunk of request) {
    raw += chunk;
    if (raw.length > MAX_BODY) throw new BadRequest('the body is too large');
  }
  try {
    const body: unknown = JSON.parse(raw || '{}');
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new BadRequest('the body must be a JSON object');
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

// What counts as "cut off from the brokers" decides when a Kafka client is rebuilt: an outage that
// is not recognised leaves a consumer crashing and restarting against nothing, never replaced.
// kafkajs reports a broker's end of the stream as "Closed connection" (an orderly close) or as
// ECONNRESET (a reset), by timing; both must count. Pure classification, no broker needed.
import { KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { isConnectivity } from '../../runtime/kafka/errors.js';

describe('isConnectivity', () => {
  it.each([
    ['a reset, as a log entry', { message: 'Connection error: read ECONNRESET' }],
    ['an orderly close, as BrokerPool logs it', { message: 'Closed connection', retryCount: 0 }],
    ['a crash on an orderly close', { message: 'Crash: KafkaJSNumberOfRetriesExceeded: Closed connection' }],
    ['a close during authentication', { message: 'Connection closed by the server' }],
    ['no broker left', { message: 'Crash: KafkaJSNoBrokerAvailableError: No broker available' }],
    // kafkajs rejects requests with this error on a close (it does not export its type).
    [
      'the error kafkajs rejects requests with on a close',
      Object.assign(new Error('Closed connection'), { name: 'KafkaJSConnectionClosedError' }),
    ],
  ])('counts %s', (_, entry) => {
    expect(isConnectivity(entry)).toBe(true);
  });

  it.each([
    ['a protocol error', new KafkaJSProtocolError('The group member needs to have a valid member id')],
    ['a bad request', new KafkaJSNonRetriableError('Invalid record batch')],
    ['a log line about a rebalance', { message: 'The group is rebalancing, re-joining' }],
  ])('does not count %s', (_, entry) => {
    expect(isConnectivity(entry)).toBe(false);
  });
});

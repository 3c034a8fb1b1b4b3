/**
 * For kafka-platformatic.test.ts: a process in which `@platformatic/kafka` cannot be resolved (a
 * module resolution hook answers as Node does for a package that is not installed). Importing
 * `@keiyaku/kafka` must still work (no static import of the client), and the platformatic driver's
 * first use must fail with its install hint. Prints the error it got as JSON.
 */
import { register } from 'node:module';

const hook = `export async function resolve(specifier, context, next) {
  if (specifier === '@platformatic/kafka' || specifier.startsWith('@platformatic/kafka/')) {
    const error = new Error("Cannot find package '@platformatic/kafka' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const { createKafkaTransport } = await import('@keiyaku/kafka');
const transport = createKafkaTransport({ driver: 'platformatic', brokers: ['127.0.0.1:9'] });
try {
  await transport.destinationExists('library.books', {});
  process.stdout.write(JSON.stringify({ loaded: true }));
} catch (error) {
  const { name, code, message } = error as { name: string; code: string; message: string };
  process.stdout.write(JSON.stringify({ name, code, message }));
}

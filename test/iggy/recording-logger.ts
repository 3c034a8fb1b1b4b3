// A logger that keeps what it is told, for tests that check what the Iggy client, consumer,
// publisher and transport report (and that nothing reaches the default stderr logger).
import type { Logger } from '../../runtime/core/logger.js';

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export function recordingLogger(): { readonly logger: Logger; readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (message: string, fields: Readonly<Record<string, unknown>> = {}): void => {
      lines.push({ level, message, fields });
    };
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

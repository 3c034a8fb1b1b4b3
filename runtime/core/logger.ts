/**
 * The logger the runtime speaks through. Hosts inject their own (pino, console, …) shaped like
 * {@link Logger}; without one, the runtime writes its warnings and errors to standard error, one
 * structured line each ({@link stderrLogger}), and keeps info and debug to itself. Library code
 * never calls `console`.
 */
export interface Logger {
  debug(message: string, fields?: Readonly<Record<string, unknown>>): void;
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/** Says nothing: for tests, and for hosts that want the runtime quiet. */
export const silentLogger: Logger = Object.freeze({ debug() {}, info() {}, warn() {}, error() {} });

const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

export interface StreamLoggerOptions {
  /** Lowest level written (default `warn`: warnings and errors; `off` writes nothing). */
  readonly level?: LogLevel;
  /** Where each line goes (default: `process.stderr`). */
  readonly write?: (line: string) => void;
  /** The time stamp of a line (default: the wall clock). */
  readonly now?: () => Date;
}

/**
 * A logger writing one JSON object per line: `{"time","level","logger":"keiyaku","msg",...fields}`.
 * Fields that do not serialise (cycles, bigints) are written as their `String()`.
 */
export function createStreamLogger(options: StreamLoggerOptions = {}): Logger {
  const threshold = RANK[options.level ?? 'warn'];
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const now = options.now ?? (() => new Date());
  const line = (level: Exclude<LogLevel, 'off'>, message: string, fields?: Readonly<Record<string, unknown>>): void => {
    if (RANK[level] < threshold) return;
    const time = now().toISOString();
    // The fixed keys first and never overwritten by a field of the same name.
    const record = Object.assign({ time, level, logger: 'keiyaku', msg: message }, fields, {
      time,
      level,
      logger: 'keiyaku',
      msg: message,
    });
    let text: string;
    try {
      text = JSON.stringify(record, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    } catch {
      text = JSON.stringify({ time: record.time, level, logger: 'keiyaku', msg: message, fields: String(fields) });
    }
    write(`${text}\n`);
  };
  return Object.freeze({
    debug: (message: string, fields?: Readonly<Record<string, unknown>>) => line('debug', message, fields),
    info: (message: string, fields?: Readonly<Record<string, unknown>>) => line('info', message, fields),
    warn: (message: string, fields?: Readonly<Record<string, unknown>>) => line('warn', message, fields),
    error: (message: string, fields?: Readonly<Record<string, unknown>>) => line('error', message, fields),
  });
}

/** The default logger of the runtime: warnings and errors to standard error, one JSON line each; info and debug off. */
export const stderrLogger: Logger = createStreamLogger();

/**
 * A logger that hands each call to whichever logger `current()` returns at that moment: for a
 * part whose logger may be replaced after it was built (a transport given the host's logger).
 */
export function forwardingLogger(current: () => Logger): Logger {
  return {
    debug: (message, fields) => current().debug(message, fields),
    info: (message, fields) => current().info(message, fields),
    warn: (message, fields) => current().warn(message, fields),
    error: (message, fields) => current().error(message, fields),
  };
}

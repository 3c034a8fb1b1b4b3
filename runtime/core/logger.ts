/** The runtime never prints; hosts inject a logger (pino, console, …) shaped like this. */
export interface Logger {
  debug(message: string, fields?: Readonly<Record<string, unknown>>): void;
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

export const silentLogger: Logger = Object.freeze({ debug() {}, info() {}, warn() {}, error() {} });

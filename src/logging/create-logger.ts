import { pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: string;
  /** Where JSON lines go; stdout when absent. Tests pass a stream to read the lines back. */
  destination?: DestinationStream;
  /** Fields on every line, e.g. the process role. */
  base?: Record<string, unknown>;
}

/** JSON lines with ISO time; secrets in auth headers never reach a log. */
export function createLogger(options: LoggerOptions): Logger {
  const settings = {
    level: options.level,
    base: { pid: process.pid, ...options.base },
    timestamp: stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.secret'], censor: '[redacted]' },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

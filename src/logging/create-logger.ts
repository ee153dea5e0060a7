import { pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: string;
  /** Where JSON lines go; stdout when absent. Tests pass a stream to read the lines back. */
  destination?: DestinationStream;
  /** Fields on every line, e.g. the process role. */
  base?: Record<string, unknown>;
  /** `json` (default): one JSON object per line. `pretty`: coloured, readable lines for development. */
  format?: LogFormat;
}

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** JSON lines with ISO time (or readable ones); secrets in auth headers never reach a log. */
export function createLogger(options: LoggerOptions): Logger {
  const settings = {
    level: options.level,
    base: { pid: process.pid, ...options.base },
    timestamp: stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'req.headers["x-gateway-secret"]', 'headers["x-gateway-secret"]', '*.secret'], censor: '[redacted]' },
  };
  if (options.destination) return pino(settings, options.destination);
  if (options.format === 'pretty') {
    // pino-pretty runs in pino's transport thread: formatting costs the service nothing.
    return pino({ ...settings, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } });
  }
  return pino(settings);
}

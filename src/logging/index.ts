export { createLogger, LOG_FORMATS, type LogFormat, type Logger, type LoggerOptions } from './create-logger.js';

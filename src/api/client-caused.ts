/**
 * Error codes of a client that went away or sent bytes the HTTP parser refused: a connection reset
 * or closed mid-request, a write to a socket the client closed, a stream that ended early.
 */
const HANG_UP_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * Whether an error is the client's doing rather than the service's: a 4xx of any library (`status`
 * or `statusCode`), a client that hung up, or a request Node's HTTP parser refused (`HPE_*`). These
 * happen in normal operation and say nothing about the service, so they are logged at debug
 * without a stack; only what the service did not expect is logged with one.
 */
export function isClientCaused(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, status, statusCode } = error as { code?: unknown; status?: unknown; statusCode?: unknown };
  const clientStatus = (value: unknown) => typeof value === 'number' && value >= 400 && value < 500;
  if (clientStatus(status) || clientStatus(statusCode)) return true;
  return typeof code === 'string' && (HANG_UP_CODES.has(code) || code.startsWith('HPE_'));
}

/** What a debug line says about a client-caused error: its code and message, never its stack. */
export function clientErrorFields(error: unknown): { code?: unknown; reason: string } {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return { ...(code !== undefined ? { code } : {}), reason: typeof message === 'string' ? message : String(error) };
}

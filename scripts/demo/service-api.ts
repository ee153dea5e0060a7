/** The running service's REST API as the demo calls it: a bearer token and the tenant header. */
import { CliError } from '../cli-io.js';

/** An answer other than the one asked for: its status and the error envelope's code and message. */
export class ServiceAnswerError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string | null,
    what: string,
    message: string,
  ) {
    super(`${what} answered ${status}${code === null ? '' : ` ${code}`}: ${message}`);
  }
}

export interface ServiceApi {
  readonly baseUrl: string;
  /** The parsed JSON answer of a 2xx; a ServiceAnswerError otherwise, a CliError when nothing answers. */
  call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T>;
}

/** One line for a URL where no service answers: what was tried and what to do. */
function unreachable(baseUrl: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (error as Error).message;
  return new CliError(`no service answers at ${baseUrl} (${why}): start it with \`npm start\`, or pass its address with --url`);
}

export function createServiceApi(baseUrl: string, auth: { token: string; tenantId: string } | null): ServiceApi {
  return {
    baseUrl,
    async call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (auth !== null) Object.assign(headers, { authorization: `Bearer ${auth.token}`, 'x-tenant-id': auth.tenantId });
      if (body !== undefined) headers['content-type'] = 'application/json';
      let response: Response;
      try {
        response = await fetch(new URL(path, baseUrl), { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      } catch (error) {
        throw unreachable(baseUrl, error);
      }
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = text.length === 0 ? null : JSON.parse(text);
      } catch {
        parsed = null;
      }
      if (!response.ok) {
        const envelope = (parsed ?? {}) as { code?: unknown; error?: unknown };
        const code = typeof envelope.code === 'string' ? envelope.code : null;
        const message = typeof envelope.error === 'string' ? envelope.error : text.slice(0, 200);
        throw new ServiceAnswerError(response.status, code, `${method} ${path}`, message);
      }
      return parsed as T;
    },
  };
}

import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Queue } from 'bullmq';
import { AuthenticationError, AuthErrorCode, AuthorizationError, roleSatisfies, type Principal, type TokenVerifier } from '../../auth/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext, AppMiddleware } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { jsonBody } from '../middleware/json-body.js';
import { dashboardContentSecurityPolicy, secureDashboardResponse, withoutThirdPartyLinks } from './dashboard-security.js';
import type { LoginThrottle } from './login-throttle.js';

export const QUEUE_BOARD_PATH = '/admin/queues';
/** The same board with job actions (retry, clean, promote, pause, resume), for ADMIN operators only. */
export const QUEUE_BOARD_ADMIN_PATH = '/admin/queues-admin';
export const OPERATOR_LOGIN_PATH = '/admin/login';
export const OPERATOR_LOGOUT_PATH = '/admin/logout';
export const OPERATOR_COOKIE = 'pe_operator';
/** The console, linked from the board's header: operators go back and forth without a second sign-in. */
const CONSOLE_PATH = '/console';

export interface QueueBoardOptions {
  queues: readonly Queue[];
  tokenVerifier: TokenVerifier;
  /**
   * The tenant whose tokens open the board (OPERATOR_TENANT). The board shows every tenant's jobs,
   * so no tenant's own token may: operators get tokens of this tenant, which holds no policies.
   */
  operatorTenant: string;
  /** Counts failed sign-ins per client address (`ctx.ip`: the proxy's client with TRUST_PROXY). */
  loginThrottle: LoginThrottle;
}

/** The sign-in form and Bull Board's job actions send a few hundred bytes at most. */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * The job actions an ADMIN operator may take, as paths under the board's base path. Everything else
 * Bull Board offers (adding or editing jobs, emptying or deleting queues, changing schedulers) is
 * refused: a job carries a tenant's id, so making one up would act in that tenant's name.
 */
const ALLOWED_ACTIONS: readonly RegExp[] = [
  /^\/api\/queues\/(pause|resume)$/,
  /^\/api\/queues\/[^/]+\/(pause|resume|promote)$/,
  /^\/api\/queues\/[^/]+\/(retry|clean)\/(failed|completed|delayed)$/,
  /^\/api\/queues\/[^/]+\/[^/]+\/(retry|clean|promote)$/,
];

/**
 * The paging Bull Board's queue list takes (`GET …/api/queues?page=&jobsPerPage=`), checked before
 * it sees them: it hands them to Redis scripts unchecked, which refuse numbers past 2^63 with a 500
 * that names the script, and a page of millions of jobs would be read whole.
 */
const BOARD_PAGING: Readonly<Record<string, { max: number }>> = { page: { max: 1_000_000 }, jobsPerPage: { max: 100 } };

function checkBoardPaging(ctx: AppContext): void {
  for (const [name, { max }] of Object.entries(BOARD_PAGING)) {
    const value = ctx.query[name];
    if (value === undefined) continue;
    const number = typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : NaN;
    if (!(number <= max)) {
      throw new ApiError(400, ApiErrorCode.REQUEST_QUERY_INVALID, `\`${name}\` must be one whole number from 1 to ${max.toLocaleString('en-US')}`);
    }
  }
}

/** The policy of the dashboard's answers other than pages (files, API calls, redirects, errors). */
const CONTENT_SECURITY_POLICY = dashboardContentSecurityPolicy();

function loginPage(message: string | null): string {
  const note = message === null ? '' : `<p role="alert" class="error">${message.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Queue dashboard — sign in</title><link rel="icon" href="data:,">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#111}
label{display:block;font-weight:600;margin-bottom:.25rem}textarea{width:100%;font:14px monospace;padding:.5rem}
button{margin-top:.75rem;padding:.5rem 1.25rem;font-size:1rem}.error{color:#a00;font-weight:600}</style></head>
<body><h1>Queue dashboard</h1>
<p>Paste an operator token: a bearer token of the operator tenant, for example from
<code>npm run -s token -- --tenant operators --role VIEWER</code> (read-only) or <code>--role ADMIN</code>
(job actions). It is kept in a cookie for this site until it expires or you sign out.</p>
${note}
<form method="post" action="${OPERATOR_LOGIN_PATH}">
<label for="token">Operator token</label>
<textarea id="token" name="token" rows="5" required autocomplete="off" spellcheck="false"></textarea>
<button type="submit">Sign in</button>
</form></body></html>
`;
}

async function readForm(ctx: AppContext): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, ApiErrorCode.REQUEST_BODY_TOO_LARGE, `the sign-in form exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function board(queues: readonly Queue[], basePath: string, readOnlyMode: boolean): AppMiddleware {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(basePath);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode })),
    serverAdapter,
    options: {
      uiConfig: {
        boardTitle: readOnlyMode ? 'Queues (read-only)' : 'Queues',
        miscLinks: [
          { text: 'Console', url: CONSOLE_PATH },
          { text: 'Sign out', url: OPERATOR_LOGOUT_PATH },
        ],
      },
    },
  });
  // Bull Board answers what its handlers throw with their message (a Redis script's, say) and
  // reports it as a failed response: the service's error handler answers and logs it instead.
  serverAdapter.setErrorHandler((error) => {
    throw error;
  });
  const plugin = serverAdapter.registerPlugin() as unknown as AppMiddleware;
  return async (ctx, next) => {
    await plugin(ctx, next);
    // A 5xx Bull Board answers without throwing (its own response check, say) is the service's failure too.
    if (ctx.status >= 500) {
      throw new Error(`the queue dashboard answered ${ctx.status} to ${ctx.method} ${ctx.path}: ${JSON.stringify(ctx.body ?? null).slice(0, 500)}`);
    }
  };
}

/**
 * The BullMQ dashboard (Bull Board) for operators: `/admin/queues` read-only for any operator
 * (VIEWER or higher of the operator tenant), `/admin/queues-admin` with job actions for ADMIN.
 * A browser signs in at `/admin/login` with a pasted token (kept in an HttpOnly, SameSite=Strict
 * cookie until the token expires); other clients send `Authorization: Bearer`.
 */
export function createQueueBoard(options: QueueBoardOptions): AppMiddleware {
  const readOnly = board(options.queues, QUEUE_BOARD_PATH, true);
  const withActions = board(options.queues, QUEUE_BOARD_ADMIN_PATH, false);

  async function operator(token: string): Promise<Principal> {
    const principal = await options.tokenVerifier.verify(token);
    if (principal.tenantId !== options.operatorTenant) {
      throw new AuthorizationError(AuthErrorCode.TENANT_MISMATCH, `the queue dashboard needs a token of the operator tenant \`${options.operatorTenant}\`, not of \`${principal.tenantId}\``);
    }
    if (!roleSatisfies(principal.role, 'VIEWER')) {
      throw new AuthorizationError(AuthErrorCode.ROLE_INSUFFICIENT, 'the queue dashboard needs role VIEWER or higher');
    }
    return principal;
  }

  const inside = (path: string, base: string) => path.startsWith(base) && (path.length === base.length || path.charCodeAt(base.length) === 0x2f);
  // Bull Board parses action bodies itself and answers a malformed one with a 500: the service's
  // parser reads them first (Bull Board then leaves the parsed body alone), so it is a 400.
  const actionBody = jsonBody({ limitBytes: MAX_BODY_BYTES });

  async function serve(ctx: AppContext, next: () => Promise<unknown>): Promise<unknown> {
    const actions = inside(ctx.path, QUEUE_BOARD_ADMIN_PATH);
    if (ctx.path === OPERATOR_LOGIN_PATH) {
      if (ctx.method === 'GET') {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = loginPage(null);
        return;
      }
      if (ctx.method !== 'POST') throw new ApiError(405, ApiErrorCode.ROUTE_METHOD_NOT_ALLOWED, `${ctx.method} ${ctx.path} is not allowed; allowed methods: GET, POST`, { Allow: 'GET, POST' });
      // A sign-in posted from another site would put the browser in someone else's session: the
      // form is taken from this origin only (the board's own page, or the console's button). The
      // browser's Sec-Fetch-Site says where it came from (Origin is `null` under no-referrer).
      const site = ctx.get('Sec-Fetch-Site');
      if (site !== '' && site !== 'same-origin') {
        ctx.status = 403;
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = loginPage('A sign-in is taken from this site’s own pages only.');
        return;
      }
      // Counted before the token is read: an address that keeps guessing is refused without a look.
      await options.loginThrottle.take(ctx.ip);
      const token = (await readForm(ctx)).get('token')?.trim() ?? '';
      let principal: Principal;
      try {
        principal = await operator(token);
      } catch (error) {
        if (!(error instanceof AuthenticationError || error instanceof AuthorizationError)) throw error;
        ctx.status = error.status;
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = loginPage(error.message);
        return;
      }
      await options.loginThrottle.giveBack(ctx.ip);
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp: number };
      ctx.cookies.set(OPERATOR_COOKIE, token, {
        httpOnly: true,
        sameSite: 'strict',
        secure: ctx.secure,
        path: '/admin',
        maxAge: Math.max(0, claims.exp * 1000 - Date.now()),
        overwrite: true,
      });
      ctx.redirect(roleSatisfies(principal.role, 'ADMIN') ? `${QUEUE_BOARD_ADMIN_PATH}/` : `${QUEUE_BOARD_PATH}/`);
      return;
    }
    if (ctx.path === OPERATOR_LOGOUT_PATH) {
      ctx.cookies.set(OPERATOR_COOKIE, '', { path: '/admin', maxAge: 0, httpOnly: true, sameSite: 'strict', overwrite: true });
      ctx.redirect(OPERATOR_LOGIN_PATH);
      return;
    }

    const header = ctx.get('Authorization');
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? ctx.cookies.get(OPERATOR_COOKIE) ?? '';
    if (token === '') {
      // A browser is sent to sign in; anything else gets the envelope.
      if (ctx.method === 'GET' && ctx.get('Accept').includes('text/html')) return ctx.redirect(OPERATOR_LOGIN_PATH);
      throw new AuthenticationError(AuthErrorCode.TOKEN_MISSING, `the queue dashboard needs an operator token: sign in at ${OPERATOR_LOGIN_PATH} or send \`Authorization: Bearer <token>\``);
    }
    const principal = await operator(token);
    if (actions && !roleSatisfies(principal.role, 'ADMIN')) {
      throw new AuthorizationError(AuthErrorCode.ROLE_INSUFFICIENT, `job actions need role ADMIN; the token grants ${principal.role ?? 'no known role'}: use ${QUEUE_BOARD_PATH} (read-only)`);
    }
    if (actions && ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      const action = ctx.path.slice(QUEUE_BOARD_ADMIN_PATH.length);
      if (!ALLOWED_ACTIONS.some((allowed) => allowed.test(action))) {
        throw new AuthorizationError(
          AuthErrorCode.ROLE_INSUFFICIENT,
          'this action is not offered: operators may retry, clean, promote, pause and resume; jobs are added only by the service',
        );
      }
    }
    // Bull Board refuses actions on read-only queues too; this refuses them before it does.
    if (!actions && ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new AuthorizationError(AuthErrorCode.ROLE_INSUFFICIENT, `${QUEUE_BOARD_PATH} is read-only: job actions are at ${QUEUE_BOARD_ADMIN_PATH}, for role ADMIN`);
    }
    if (actions && ctx.method !== 'GET' && ctx.method !== 'HEAD') await actionBody(ctx, async () => {});
    checkBoardPaging(ctx);
    // Bull Board's pages and files: nothing else of ours (routes) runs for them.
    return actions ? withActions(ctx, next) : readOnly(ctx, next);
  }

  async function dashboard(ctx: AppContext, next: () => Promise<unknown>): Promise<void> {
    secureDashboardResponse(ctx, CONTENT_SECURITY_POLICY);
    await serve(ctx, next);
    if (typeof ctx.body === 'string' && ctx.response.is('html')) {
      const page = withoutThirdPartyLinks(ctx.body);
      ctx.body = page;
      // A page's policy allows the inline styles it was written with, and no other.
      ctx.set('Content-Security-Policy', dashboardContentSecurityPolicy(page));
    }
  }

  // Runs ahead of every route, and not async: a request for anything else goes on after a
  // comparison or two, with the next middleware's promise.
  return (ctx, next) => {
    const { path } = ctx;
    if (inside(path, QUEUE_BOARD_PATH) || inside(path, QUEUE_BOARD_ADMIN_PATH) || path === OPERATOR_LOGIN_PATH || path === OPERATOR_LOGOUT_PATH) return dashboard(ctx, next);
    return next();
  };
}

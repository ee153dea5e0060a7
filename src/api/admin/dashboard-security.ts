import { createHash } from 'node:crypto';
import type { AppContext } from '../app-types.js';

/**
 * A `<style>` element Bull Board's script adds at run time (the Redis logo's colours, in the 9.x
 * bundle), allowed by its hash. Should a new Bull Board add or change one, the browser refuses it
 * and names the hash to list here (test/integration/tenant-isolation-edges.test.ts fails on it).
 */
const BULL_BOARD_SCRIPT_STYLES: readonly string[] = ["'sha256-r2N1TB/gHbBtBZFKg7ejmq1acVSREzucTAEw6ga4hoU='"];

const hashSource = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The policy of a dashboard response: scripts, styles, images, fonts and calls from this origin
 * only (Bull Board's own files), no framing, forms posted here only. `base-uri 'self'`: Bull
 * Board's page sets `<base href>` to the board's path. Inline styles are allowed only as written
 * in `html`, the page being answered (Bull Board's template and the sign-in page: the service's
 * own text), by their hashes; React sets styles through the CSSOM, which `style-src` does not govern.
 */
export function dashboardContentSecurityPolicy(html = ''): string {
  const elements = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((match) => hashSource(match[1]!));
  const attributes = [...html.matchAll(/\sstyle\s*=\s*"([^"]*)"/gi)].map((match) => hashSource(match[1]!));
  return [
    "default-src 'none'",
    "script-src 'self'",
    ["style-src 'self'", ...new Set([...elements, ...BULL_BOARD_SCRIPT_STYLES])].join(' '),
    ...(attributes.length > 0 ? [["style-src-attr 'unsafe-hashes'", ...new Set(attributes)].join(' ')] : []),
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers of every dashboard response: the policy, no framing (also for browsers without CSP 2), no sniffing. */
export function secureDashboardResponse(ctx: AppContext, policy: string): void {
  ctx.set('Content-Security-Policy', policy);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
}

/**
 * Bull Board's page links its fonts from a public font CDN: every operator's browser would ask a
 * third party for them (and wait for it offline). The page is served without any link to another
 * origin; the dashboard's CSS falls back to the system's fonts.
 */
export function withoutThirdPartyLinks(html: string): string {
  return html.replace(/<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?\/\/[^>]*>\s*/gi, '');
}

import { isIP } from 'node:net';
import { refusedAddress } from './address-ranges.js';

/** Longest subscription URL, in characters. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

/**
 * What a URL parser drops silently (spaces and controls at the ends, tabs and newlines anywhere) or
 * rewrites (`\` read as `/`): a URL with one would be shown as one address and used as another.
 */
const REWRITTEN_CHARACTERS = /[\u0000-\u0020\u007f\\]/;

/** Where deliveries may go: what WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_NETWORKS say. */
export interface DestinationRules {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
}

/** The host of a URL as an address, when it is an IP literal (`[::1]` without its brackets). */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? null : bare;
}

/** What is wrong with a URL: not one at all (`invalid`), or a destination the service does not send to (`refused`). */
export interface UrlProblem {
  kind: 'invalid' | 'refused';
  message: string;
}

/**
 * Why a subscription may not take this URL, or null when it may. Host names are resolved at each
 * attempt (and refused there when they lead to a refused address); an IP literal is judged here.
 */
export function urlProblem(text: string, rules: DestinationRules): UrlProblem | null {
  if (text.length > WEBHOOK_URL_MAX_LENGTH) return { kind: 'invalid', message: `\`url\` must be at most ${WEBHOOK_URL_MAX_LENGTH} characters` };
  if (REWRITTEN_CHARACTERS.test(text)) return { kind: 'invalid', message: '`url` must not contain spaces, control characters or `\\` (percent-encode them)' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { kind: 'invalid', message: '`url` must be an absolute URL' };
  }
  if (url.port === '0') return { kind: 'invalid', message: '`url` must name a port from 1 to 65535' };
  const refused = refusedUrl(url, rules);
  return refused === null ? null : { kind: 'refused', message: refused };
}

function refusedUrl(url: URL, rules: DestinationRules): string | null {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp)) {
    return rules.allowHttp ? '`url` must start with https:// or http://' : '`url` must start with https:// (WEBHOOK_ALLOW_HTTP is off)';
  }
  if (url.username !== '' || url.password !== '') return '`url` must not carry credentials (user or password)';
  if (url.hash !== '') return '`url` must not have a fragment (#…)';
  const address = literalAddress(url.hostname);
  if (address !== null && !rules.allowPrivateNetworks) {
    const refused = refusedAddress(address);
    if (refused !== null) return `\`url\` names ${address}, ${refused}, where webhooks are not sent (WEBHOOK_ALLOW_PRIVATE_NETWORKS is off)`;
  }
  return null;
}

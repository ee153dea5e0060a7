const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;
const MIN_MS = Date.UTC(1, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * Parses an ISO 8601 date-time with a zone designator into the stored form
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`, which compares correctly as text). Stored times have millisecond
 * precision, so finer fractions round towards the inside of a range: `ceil` for a lower bound,
 * `floor` for an upper one. Returns null for anything that is not a real instant.
 */
export function parseIsoTimestamp(text: string, rounding: 'ceil' | 'floor'): string | null {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s = '0', fraction = '', zulu, sign, oh = '0', om = '0'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  if (Number(oh) > 23 || Number(om) > 59) return null;
  const calendar = new Date(Date.UTC(2000, month - 1, day));
  calendar.setUTCFullYear(year);
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  let millis = Number(fraction.slice(0, 3).padEnd(3, '0'));
  if (rounding === 'ceil' && /[1-9]/.test(fraction.slice(3))) millis += 1;
  const offsetMinutes = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, millis);
  const instant = utc.getTime() - offsetMinutes * 60_000;
  if (instant < MIN_MS || instant > MAX_MS) return null;
  return new Date(instant).toISOString();
}

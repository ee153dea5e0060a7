// A time typed in UTC as `YYYY-MM-DD HH:MM` (24-hour): a text input, not the browser's date
// picker, which shows the browser's locale and zone. The URL keeps ISO instants.
import { h } from './dom.js';

const TYPED = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/;
export const UTC_TIME_PATTERN = '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}';
const MINUTE_MS = 60_000;

/** A time filter as a URL keeps it: an ISO instant with milliseconds (a bare date-time is UTC), or ''. */
export function instantParam(text) {
  if (!text) return '';
  const date = new Date(/(Z|[+-]\d\d:\d\d)$/.test(text) ? text : `${text}Z`);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** An ISO instant as the input shows it (`2026-11-28 14:05`); '' for none. */
export function utcInputValue(iso) {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '';
}

/**
 * What was typed as an ISO instant: the minute's start, or with `endOfMinute` its last
 * millisecond (a "to" bound includes the minute it names). '' for an empty input, null when it is
 * no such time (a 13th month, 24:00, 31 February).
 */
export function parseUtcInput(text, { endOfMinute = false } = {}) {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const parts = TYPED.exec(trimmed);
  if (!parts) return null;
  const [year, month, day, hour, minute] = parts.slice(1).map(Number);
  const ms = Date.UTC(year, month - 1, day, hour, minute);
  const date = new Date(ms);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || date.getUTCHours() !== hour || date.getUTCMinutes() !== minute) return null;
  return new Date(endOfMinute ? ms + MINUTE_MS - 1 : ms).toISOString();
}

/** The input (id, name, value an ISO instant or ''), described by the element `describedBy` names. */
export function utcTimeInput(id, iso, describedBy) {
  return h('input', {
    id,
    name: id,
    type: 'text',
    inputmode: 'numeric',
    pattern: UTC_TIME_PATTERN,
    placeholder: 'YYYY-MM-DD HH:MM',
    value: utcInputValue(iso),
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': describedBy,
  });
}

/**
 * The range typed in two inputs (labelled `fromLabel` and `toLabel`): `{from, to}` as ISO instants
 * ('' when empty; `to` up to the end of its minute), or `{control, problem}` naming the input to fix.
 */
export function typedUtcRange(from, to, fromLabel, toLabel) {
  const range = { from: parseUtcInput(from.value), to: parseUtcInput(to.value, { endOfMinute: true }) };
  const malformed = (control, label) => ({ control, problem: `“${label}” must be a UTC time written YYYY-MM-DD HH:MM, for example 2026-11-28 14:05 (got “${control.value.trim().slice(0, 40)}”).` });
  if (range.from === null) return malformed(from, fromLabel);
  if (range.to === null) return malformed(to, toLabel);
  if (range.from !== '' && range.to !== '' && range.from > range.to) return { control: to, problem: `“${toLabel}” is before “${fromLabel}”.` };
  return range;
}

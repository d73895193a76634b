/**
 * Calendar arithmetic without a clock: policy/ may not touch `Date`, so the two textual times it reads
 * (an HTTP date in `retry-after`, an ISO 8601 `deadline`) are turned into epoch milliseconds here.
 */

const MS_PER_DAY = 86_400_000;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1-12). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The UTC calendar year and month (1-12) that contain epoch milliseconds `ms`. */
export function utcYearMonth(ms: number): { year: number; month: number } {
  const z = Math.floor(ms / MS_PER_DAY) + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month };
}

/** The UTC calendar year that contains epoch milliseconds `ms`. */
export function utcYear(ms: number): number {
  return utcYearMonth(ms).year;
}

/** Epoch milliseconds of the first of `month` (1-12; 13 is January of the next year) of `year`, midnight UTC. */
export function utcMonthStart(year: number, month: number): number {
  const y = month > 12 ? year + 1 : year;
  const m = month > 12 ? month - 12 : month;
  return daysFromCivil(y, m, 1) * MS_PER_DAY;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Epoch ms of a UTC wall time, or `undefined` when a field is out of range (a leap second 60 is kept). */
export function utcMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms = 0,
): number | undefined {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  return daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + ms;
}

const monthNumber = (name: string): number => MONTHS.indexOf(name.toLowerCase()) + 1;

const IMF_FIXDATE = /^[a-z]{3},\s*(\d{1,2})\s+([a-z]{3})\s+(\d{4})\s+(\d{2}):(\d{2}):(\d{2})\s+(?:GMT|UTC)$/i;
const RFC850_DATE = /^[a-z]+,\s*(\d{1,2})-([a-z]{3})-(\d{2})\s+(\d{2}):(\d{2}):(\d{2})\s+(?:GMT|UTC)$/i;
const ASCTIME_DATE = /^[a-z]{3}\s+([a-z]{3})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\s+(\d{4})$/i;

/**
 * Epoch ms of an HTTP date (RFC 9110 §5.6.7: IMF-fixdate, the obsolete RFC 850 form and asctime), or
 * `undefined` when the text is none of them. A two-digit RFC 850 year more than 50 years after `nowMs`'s
 * year means the century before, as RFC 9110 requires.
 */
export function parseHttpDate(text: string, nowMs: number): number | undefined {
  const s = text.trim();
  let m = IMF_FIXDATE.exec(s);
  if (m) return fromParts(m[3], m[2], m[1], m[4], m[5], m[6]);
  m = RFC850_DATE.exec(s);
  if (m) {
    const thisYear = utcYear(nowMs);
    let year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    return fromParts(String(year), m[2], m[1], m[4], m[5], m[6]);
  }
  m = ASCTIME_DATE.exec(s);
  if (m) return fromParts(m[6], m[1], m[2], m[3], m[4], m[5]);
  return undefined;
}

function fromParts(
  year: string | undefined,
  monthName: string | undefined,
  day: string | undefined,
  hour: string | undefined,
  minute: string | undefined,
  second: string | undefined,
): number | undefined {
  const month = monthNumber(monthName ?? '');
  if (month === 0) return undefined;
  return utcMs(Number(year), month, Number(day), Number(hour), Number(minute), Number(second));
}

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/**
 * Epoch ms of an ISO 8601 / RFC 3339 instant with an explicit zone (`Z` or `±HH:MM`), e.g.
 * `2026-03-01T12:00:00Z`; `undefined` for anything else, including a time without a zone (ambiguous).
 * Fractions beyond milliseconds are truncated.
 */
export function parseIsoInstant(text: string): number | undefined {
  const m = ISO_INSTANT.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zulu, sign, oh, om] = m;
  const ms = frac === undefined ? 0 : Number(frac.padEnd(3, '0').slice(0, 3));
  const local = utcMs(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s ?? '0'), ms);
  if (local === undefined) return undefined;
  if (zulu !== undefined) return local;
  const offsetHours = Number(oh);
  const offsetMinutes = Number(om);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offsetMs = (offsetHours * 60 + offsetMinutes) * 60_000;
  return sign === '-' ? local + offsetMs : local - offsetMs;
}

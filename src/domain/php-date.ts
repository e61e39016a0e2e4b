/**
 * WordPress' date and time formats (PHP `date()` format strings such as `F j, Y` and `g:i a`) on
 * wall times (`YYYY-MM-DD HH:MM:SS`, already in the event's zone), as the calendar pages write an
 * event's dates (CALENDAR_DATE_FORMAT, CALENDAR_TIME_FORMAT). Plain string arithmetic: no time
 * zone database on the pages' hot path, so the letters that need a zone (`e`, `T`, `O`, `P`, `U`,
 * `c`, `r`, `I`, `Z`) are refused when a format is set (`phpFormatProblem`).
 *
 * @example
 *   formatWall('2027-03-27 09:05:00', 'l j F Y, g:i a'); // 'Saturday 27 March 2027, 9:05 am'
 */
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** PHP's letters this formatter writes. */
const SUPPORTED = new Set('dDjlNSwzFMmntLYyaAgGhHis');
/** PHP's letters that need a zone or an instant, which wall times do not carry. */
const UNSUPPORTED = new Set('BuveTOPpIZcrUWoXx');

const pad = (n: number) => String(n).padStart(2, '0');
const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** `wall` written with the PHP `format`; letters PHP does not know are written as they are, `\x` is `x`. */
export function formatWall(wall: string, format: string): string {
  const y = +wall.slice(0, 4);
  const mo = +wall.slice(5, 7);
  const d = +wall.slice(8, 10);
  const h = +wall.slice(11, 13) || 0;
  const mi = +wall.slice(14, 16) || 0;
  const s = +wall.slice(17, 19) || 0;
  const date = new Date(Date.UTC(y, mo - 1, d));
  const dow = date.getUTCDay();
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c === '\\') {
      out += format[++i] ?? '';
      continue;
    }
    switch (c) {
      case 'd':
        out += pad(d);
        break;
      case 'D':
        out += WEEKDAYS[dow]!.slice(0, 3);
        break;
      case 'j':
        out += d;
        break;
      case 'l':
        out += WEEKDAYS[dow];
        break;
      case 'N':
        out += dow === 0 ? 7 : dow;
        break;
      case 'S':
        out += d % 10 === 1 && d !== 11 ? 'st' : d % 10 === 2 && d !== 12 ? 'nd' : d % 10 === 3 && d !== 13 ? 'rd' : 'th';
        break;
      case 'w':
        out += dow;
        break;
      case 'z':
        out += Math.round((date.getTime() - Date.UTC(y, 0, 1)) / 86_400_000);
        break;
      case 'F':
        out += MONTHS[mo - 1];
        break;
      case 'M':
        out += MONTHS[mo - 1]!.slice(0, 3);
        break;
      case 'm':
        out += pad(mo);
        break;
      case 'n':
        out += mo;
        break;
      case 't':
        out += new Date(Date.UTC(y, mo, 0)).getUTCDate();
        break;
      case 'L':
        out += leap(y) ? 1 : 0;
        break;
      case 'Y':
        out += y;
        break;
      case 'y':
        out += pad(y % 100);
        break;
      case 'a':
        out += h < 12 ? 'am' : 'pm';
        break;
      case 'A':
        out += h < 12 ? 'AM' : 'PM';
        break;
      case 'g':
        out += h % 12 === 0 ? 12 : h % 12;
        break;
      case 'G':
        out += h;
        break;
      case 'h':
        out += pad(h % 12 === 0 ? 12 : h % 12);
        break;
      case 'H':
        out += pad(h);
        break;
      case 'i':
        out += pad(mi);
        break;
      case 's':
        out += pad(s);
        break;
      default:
        out += c;
    }
  }
  return out;
}

/** Why the pages cannot use `format` (a letter needing a zone, or no letter at all), or undefined. */
export function phpFormatProblem(format: string): string | undefined {
  let letters = 0;
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (UNSUPPORTED.has(c)) return `uses "${c}", which needs a time zone or an instant: use d D j l N S w z F M m n t L Y y a A g G h H i s (and \\ before a letter to write it as it is)`;
    if (SUPPORTED.has(c)) letters++;
  }
  return letters === 0 ? 'has no date or time letter (such as F j, Y or g:i a)' : undefined;
}

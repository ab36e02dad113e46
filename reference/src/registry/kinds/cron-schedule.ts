// A cron job's schedule and time zone, checked as Kubernetes 1.28 checks them: the schedule
// with the standard cron parser Kubernetes uses (five fields, month and weekday names, `*`,
// `?`, ranges, steps, lists; the `@hourly`-style descriptors and `@every <duration>`; an
// optional `TZ=`/`CRON_TZ=` prefix), with that parser's error texts; the time zone as a name
// of the IANA database.

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: {
    jan: 1,
    feb: 2,
    mar: 3,
    apr: 4,
    may: 5,
    jun: 6,
    jul: 7,
    aug: 8,
    sep: 9,
    oct: 10,
    nov: 11,
    dec: 12,
  },
};
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };
const FIELDS: Bounds[] = [{ min: 0, max: 59 }, { min: 0, max: 23 }, { min: 1, max: 31 }, MONTHS, DOW];

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

class CronError extends Error {}

/** Go's strconv.Atoi, with its error text. */
function atoi(s: string): number {
  if (!/^[+-]?\d+$/.test(s))
    throw new CronError(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63 - 1)
    throw new CronError(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return n;
}

function parseInt0(expr: string): number {
  let n: number;
  try {
    n = atoi(expr);
  } catch (e) {
    throw new CronError(`failed to parse int from ${expr}: ${(e as Error).message}`);
  }
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names: Record<string, number> | undefined): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? parseInt0(expr);
}

function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseInt0(rangeAndStep[1]!);
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) throw new CronError(`too many slashes: ${expr}`);
  if (start < r.min) throw new CronError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new CronError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
}

const DURATION_UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);

/** Go's time.ParseDuration, as far as accepting and its error texts go. */
function checkGoDuration(s: string): void {
  const quoted = JSON.stringify(s);
  let rest = s.replace(/^[-+]/, '');
  if (rest === '0') return;
  if (rest === '') throw new CronError(`time: invalid duration ${quoted}`);
  while (rest !== '') {
    const num = /^(\d*)(\.\d*)?/.exec(rest)!;
    if (num[0] === '' || num[0] === '.') throw new CronError(`time: invalid duration ${quoted}`);
    rest = rest.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(rest)![0];
    if (unit === '') throw new CronError(`time: missing unit in duration ${quoted}`);
    if (!DURATION_UNITS.has(unit))
      throw new CronError(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    rest = rest.slice(unit.length);
  }
}

/** Why a schedule does not parse (the standard parser's words), or undefined when it does. */
export function cronScheduleProblem(spec: string): string | undefined {
  try {
    parseSchedule(spec);
    return undefined;
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
}

function parseSchedule(input: string): void {
  let spec = input;
  if (spec.length === 0) throw new CronError('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    const loc = i < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, i);
    const problem = timeZoneProblem(loc);
    if (problem) throw new CronError(`provided bad location ${loc}: ${problem}`);
    spec = i < 0 ? '' : spec.slice(i).trim();
  }
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.includes(spec)) return;
    if (spec.startsWith('@every ')) {
      try {
        checkGoDuration(spec.slice('@every '.length));
      } catch (e) {
        throw new CronError(`failed to parse duration ${spec}: ${(e as Error).message}`);
      }
      return;
    }
    throw new CronError(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5)
    throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  fields.forEach((f, i) => {
    for (const expr of f.split(',').filter((x) => x !== '')) checkRange(expr, FIELDS[i]!);
  });
}

/** Why a time zone name is not one the IANA database knows (Go's LoadLocation words), or undefined. */
export function timeZoneProblem(tz: string): string | undefined {
  if (tz === '' || tz === 'UTC' || tz === 'Local') return undefined;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    // names are case-sensitive (they are file names in the database)
    if (resolved !== tz && resolved.toLowerCase() === tz.toLowerCase()) return `unknown time zone ${tz}`;
    return undefined;
  } catch {
    return `unknown time zone ${tz}`;
  }
}

// The single-field constraints of the definitions table (fields.ts), checked on a loaded and
// defaulted configuration: required fields, ranges, allowed values and keys, and the text
// formats (durations, CPU lists, eviction signals and thresholds, quantities, cgroup names,
// sysctl patterns, percentages, the hidden-metrics version).
import { parseQuantity } from '../schema/normalize.ts';
import { parseDuration } from '../util/duration.ts';
import { parseCpuList } from './cpu-list.ts';
import { isEvictionSignal, thresholdProblem } from './eviction.ts';
import { childPath, type FieldError, keyPath } from './field-error.ts';
import type { FieldDef, Format } from './fields.ts';
import { checks, type RuleClass, type RuleOptions } from './rule-class.ts';

/** The node agent's own minor version: showHiddenMetricsForVersion may name only the one before it. */
export const CURRENT_VERSION = { major: 1, minor: 28 };

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

const SYSCTL_NAME = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;

/** Why a string is not in its format (with the rule class the check belongs to), or undefined. */
function formatProblem(format: Format, s: string): { cls: RuleClass; detail: string } | undefined {
  switch (format) {
    case 'cpuList':
      return parseCpuList(s) === undefined
        ? {
            cls: 'cpu-lists',
            detail: 'must be a CPU list: CPU ids and ranges separated by commas, e.g. 0-3,5',
          }
        : undefined;
    case 'quantity':
      return parseQuantity(s) === undefined || s.trim() !== s
        ? { cls: 'formats', detail: 'must be a quantity, e.g. 10Mi' }
        : undefined;
    case 'absoluteCgroup':
      return s !== '' && !s.startsWith('/')
        ? { cls: 'formats', detail: 'must be an absolute cgroup name (starting with "/")' }
        : undefined;
    case 'minorVersion': {
      if (s === '') return undefined;
      const want = `${CURRENT_VERSION.major}.${CURRENT_VERSION.minor - 1}`;
      return s === want
        ? undefined
        : {
            cls: 'values',
            detail: `must be omitted or "${want}": only the previous minor version is allowed`,
          };
    }
    case 'sysctlPattern': {
      const base = s.endsWith('*') ? s.slice(0, -1).replace(/[./]$/, '') : s;
      return SYSCTL_NAME.test(base) && (base.length > 0 || s === '*') && s.length <= 253
        ? undefined
        : { cls: 'formats', detail: 'must be a sysctl name, or a sysctl prefix ending with "*"' };
    }
    case 'evictionThreshold': {
      const why = thresholdProblem(s);
      return why ? { cls: 'eviction-signals', detail: why } : undefined;
    }
    case 'percentage': {
      const m = /^(\d+)%$/.exec(s);
      return !m || Number(m[1]) > 100
        ? { cls: 'formats', detail: 'must be a percentage from 0% to 100%' }
        : undefined;
    }
  }
}

function checkScalar(
  def: FieldDef,
  v: unknown,
  path: string,
  opts: RuleOptions | undefined,
  out: FieldError[],
): void {
  if (typeof v === 'number' && checks(opts, 'ranges')) {
    const parts: string[] = [];
    if (def.min !== undefined) parts.push(`at least ${def.min}`);
    if (def.above !== undefined) parts.push(`above ${def.above}`);
    if (def.max !== undefined) parts.push(`at most ${def.max}`);
    const bad =
      (def.min !== undefined && v < def.min) ||
      (def.above !== undefined && v <= def.above) ||
      (def.max !== undefined && v > def.max);
    if (bad) out.push({ path, type: 'Invalid value', value: v, detail: `must be ${parts.join(' and ')}` });
  }
  if (typeof v !== 'string') return;
  if (def.kind === 'duration' && checks(opts, 'durations') && parseDuration(v) === undefined)
    out.push({
      path,
      type: 'Invalid value',
      value: v,
      detail: 'must be a duration: numbers with units ns, us, ms, s, m or h, e.g. 1m30s (or 0)',
    });
  if (def.values && checks(opts, 'values') && !def.values.includes(v))
    out.push({
      path,
      type: 'Unsupported value',
      value: v,
      detail: `supported values: ${def.values.map((x) => JSON.stringify(x)).join(', ')}`,
    });
  if (def.format && v !== '') {
    const p = formatProblem(def.format, v);
    if (p && checks(opts, p.cls)) out.push({ path, type: 'Invalid value', value: v, detail: p.detail });
  }
}

/** One entry of a map field: its key allowed, its value a quantity, duration or the field's format. */
function checkMapEntry(
  def: FieldDef,
  k: string,
  x: unknown,
  p: string,
  opts: RuleOptions | undefined,
  out: FieldError[],
): void {
  if (def.signalKeys && !isEvictionSignal(k)) {
    if (checks(opts, 'eviction-signals'))
      out.push({ path: p, type: 'Unsupported value', value: k, detail: 'not an eviction signal name' });
    return;
  }
  if (def.keys && !def.keys.includes(k)) {
    if (checks(opts, 'values'))
      out.push({
        path: p,
        type: 'Unsupported value',
        value: k,
        detail: `supported keys: ${def.keys.map((x) => JSON.stringify(x)).join(', ')}`,
      });
    return;
  }
  if (def.kind === 'resourceList') {
    const q =
      typeof x === 'number' ? parseQuantity(String(x)) : typeof x === 'string' ? parseQuantity(x) : undefined;
    if ((!q || q.nanos < 0n) && checks(opts, 'formats'))
      out.push({
        path: p,
        type: 'Invalid value',
        value: x,
        detail: 'must be a quantity that is not negative',
      });
    return;
  }
  if (typeof x !== 'string') return;
  if (def.name === 'evictionSoftGracePeriod') {
    const ns = parseDuration(x);
    if ((ns === undefined || ns < 0n) && checks(opts, 'durations'))
      out.push({
        path: p,
        type: 'Invalid value',
        value: x,
        detail: 'must be a duration that is not negative',
      });
    return;
  }
  if (def.format) {
    const problem = formatProblem(def.format, x);
    if (problem && checks(opts, problem.cls))
      out.push({ path: p, type: 'Invalid value', value: x, detail: problem.detail });
  }
}

function checkField(
  def: FieldDef,
  v: unknown,
  path: string,
  opts: RuleOptions | undefined,
  out: FieldError[],
): void {
  if (v === undefined || v === null || (def.required && v === '')) {
    if (def.required && checks(opts, 'required'))
      out.push({ path, type: 'Required value', detail: `${def.name} must be set` });
    return;
  }
  switch (def.kind) {
    case 'object':
      if (isObject(v)) checkFields(def.fields ?? [], v, path, opts, out);
      return;
    case 'objectList':
      if (Array.isArray(v))
        v.forEach((x, i) => {
          if (isObject(x)) checkFields(def.fields ?? [], x, childPath(path, i), opts, out);
        });
      return;
    case 'stringList':
      if (Array.isArray(v))
        v.forEach((x, i) => {
          checkScalar(def, x, childPath(path, i), opts, out);
        });
      return;
    case 'stringMap':
    case 'resourceList':
    case 'boolMap':
    case 'stringListMap':
      if (isObject(v))
        for (const [k, x] of Object.entries(v)) checkMapEntry(def, k, x, keyPath(path, k), opts, out);
      return;
    default:
      checkScalar(def, v, path, opts, out);
  }
}

/** The single-field errors of an object (well-typed: structure.ts has passed it). */
export function checkFields(
  defs: readonly FieldDef[],
  obj: Obj,
  path: string,
  opts: RuleOptions | undefined,
  out: FieldError[],
): void {
  for (const def of defs) checkField(def, obj[def.name], childPath(path, def.name), opts, out);
}

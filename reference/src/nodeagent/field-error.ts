// One error of a node agent configuration file, worded as Kubernetes' field error lists
// (`field.ErrorList`) print them: `<path>: <type>: <value>: <detail>`. A path is the field's
// place in the file (`authentication.webhook.cacheTTL`, `shutdownGracePeriodByPodPriority[0].priority`);
// the empty path is the whole document.

export type FieldErrorType =
  | 'Required value'
  | 'Invalid value'
  | 'Unsupported value'
  | 'Duplicate value'
  | 'Forbidden'
  | 'Too long';

export interface FieldError {
  path: string;
  type: FieldErrorType;
  /** The offending value (omitted for Required value and for whole-document errors). */
  value?: unknown;
  detail: string;
}

const shown = (v: unknown): string => {
  if (typeof v === 'string') return JSON.stringify(v);
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 200 ? `${s.slice(0, 200)}…` : s;
};

/** `path: Type: value: detail`, as `field.Error.Error()` prints it. */
export function formatFieldError(e: FieldError): string {
  const where = e.path || '<document>';
  if (e.type === 'Required value' || e.value === undefined) return `${where}: ${e.type}: ${e.detail}`;
  return `${where}: ${e.type}: ${shown(e.value)}: ${e.detail}`;
}

/** A child path: `a` + `b` is `a.b`; a list index is written `a[0]`. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/** A map entry's path, as `field.Path.Key` writes it: `evictionHard[memory.available]`. */
export function keyPath(parent: string, key: string): string {
  return `${parent}[${key}]`;
}

// Subset matching of JSON values for the contract rows, with placeholders for what a row
// cannot know in advance: `$ns` (the case namespace), `$name` (the object's name), `$user`
// (the caller's user name), `$any` (present, not null), `$string` (a non-empty string),
// `$null` (null or absent) and `$absent` (absent).
import { show } from '../../harness/src/assert.ts';

export interface Bindings {
  ns: string;
  name: string;
  user?: string;
  /** The case's mutating configuration's name. */
  mutating?: string;
}

/** The differences between `actual` and the subset `want` (empty when it holds), each a path and what was found. */
export function mismatches(actual: unknown, want: unknown, b: Bindings, path = ''): string[] {
  if (typeof want === 'string' && want.startsWith('$')) {
    const here = path || '(the value)';
    switch (want) {
      case '$any':
        return actual === undefined || actual === null
          ? [`${here}: present and not null, got ${show(actual)}`]
          : [];
      case '$string':
        return typeof actual === 'string' && actual
          ? []
          : [`${here}: a non-empty string, got ${show(actual)}`];
      case '$null':
        return actual === undefined || actual === null ? [] : [`${here}: null, got ${show(actual)}`];
      case '$absent':
        return actual === undefined ? [] : [`${here}: absent, got ${show(actual)}`];
      case '$ns':
        return actual === b.ns ? [] : [`${here}: ${show(b.ns)}, got ${show(actual)}`];
      case '$name':
        return actual === b.name ? [] : [`${here}: ${show(b.name)}, got ${show(actual)}`];
      case '$mutating':
        return actual === b.mutating ? [] : [`${here}: ${show(b.mutating)}, got ${show(actual)}`];
      case '$user':
        return actual === b.user ? [] : [`${here}: ${show(b.user)}, got ${show(actual)}`];
      default:
        throw new Error(`unknown placeholder ${want}`);
    }
  }
  if (want === null)
    return actual === null || actual === undefined ? [] : [`${path}: null, got ${show(actual)}`];
  if (Array.isArray(want)) {
    if (!Array.isArray(actual) || actual.length !== want.length)
      return [`${path}: ${show(want)}, got ${show(actual)}`];
    return want.flatMap((w, i) => mismatches(actual[i], w, b, `${path}[${i}]`));
  }
  if (typeof want === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: an object, got ${show(actual)}`];
    return Object.entries(want as Record<string, unknown>).flatMap(([k, w]) =>
      mismatches((actual as Record<string, unknown>)[k], w, b, path ? `${path}.${k}` : k),
    );
  }
  return actual === want ? [] : [`${path}: ${show(want)}, got ${show(actual)}`];
}

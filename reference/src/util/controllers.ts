// `--controllers`: a comma-separated list where `*` turns on the controllers that are on by
// default, a name turns one on and `-name` turns it off (as Kubernetes' controller manager
// reads it: tokencleaner is off by default, so `*,tokencleaner` runs it; serviceaccount, which
// keeps a `default` service account in every namespace, is on).
export const KNOWN_CONTROLLERS = ['serviceaccount', 'tokencleaner'] as const;
/** Controllers that `*` does not include. */
export const OFF_BY_DEFAULT: readonly string[] = ['tokencleaner'];

export function controllerEnabled(list: readonly string[] | undefined, name: string): boolean {
  const l = list ?? ['*'];
  if (l.includes(`-${name}`)) return false;
  if (l.includes(name)) return true;
  return l.includes('*') && !OFF_BY_DEFAULT.includes(name);
}

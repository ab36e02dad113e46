// What a soak watcher watches: all namespaces, one namespace, a label selector, or one object
// (a field selector on metadata.name). The same scope gives the watch's query and the predicate
// the checker uses to say which acknowledged writes the watcher must see; the predicate is
// written from the scope's definition, not asked of the server.

export interface LabelRequirement {
  key: string;
  op: '=' | '!=' | 'in';
  values: string[];
}

export interface Scope {
  /** all | namespace | labels | object */
  kind: 'all' | 'namespace' | 'labels' | 'object';
  namespace?: string;
  labels?: LabelRequirement[];
  name?: string;
}

/** The object facts a scope looks at. */
export interface ObjectRef {
  namespace: string;
  name: string;
  labels: Record<string, string>;
}

export const SHARDS = ['a', 'b', 'c', 'd'];

/** The labels of the soak object `name` (stable for its whole life: updates never move it in or out of a scope). */
export function labelsOf(index: number): Record<string, string> {
  return { 'soak-shard': SHARDS[index % SHARDS.length]!, 'soak-tier': index % 3 === 0 ? 'gold' : 'silver' };
}

export function objectName(index: number): string {
  return `cm-${index}`;
}

export function matches(scope: Scope, o: ObjectRef): boolean {
  if (scope.namespace !== undefined && o.namespace !== scope.namespace) return false;
  if (scope.name !== undefined && o.name !== scope.name) return false;
  for (const r of scope.labels ?? []) {
    const v = o.labels[r.key];
    if (r.op === '=' && v !== r.values[0]) return false;
    if (r.op === '!=' && v === r.values[0]) return false;
    if (r.op === 'in' && (v === undefined || !r.values.includes(v))) return false;
  }
  return true;
}

/** The collection path and selector query of a scope's watch (without watch parameters). */
export function watchPath(scope: Scope): string {
  const base = scope.namespace ? `/api/v1/namespaces/${scope.namespace}/configmaps` : '/api/v1/configmaps';
  const q = new URLSearchParams();
  if (scope.labels?.length)
    q.set(
      'labelSelector',
      scope.labels
        .map((r) => (r.op === 'in' ? `${r.key} in (${r.values.join(',')})` : `${r.key}${r.op}${r.values[0]}`))
        .join(','),
    );
  if (scope.name !== undefined) q.set('fieldSelector', `metadata.name=${scope.name}`);
  const s = q.toString();
  return s ? `${base}?${s}` : base;
}

/** A short text naming the scope (for reports). */
export function describe(scope: Scope): string {
  const p = watchPath(scope);
  return decodeURIComponent(p.replace(/^\/api\/v1\//, ''));
}

/**
 * The watcher mix: a quarter each of all namespaces, one namespace, label selectors (equality,
 * set-based, inequality; cluster-wide and in a namespace) and single objects.
 */
export function scopeMix(count: number, namespaces: string[], objectsPerNamespace: number): Scope[] {
  const scopes: Scope[] = [];
  for (let i = 0; i < count; i++) {
    const ns = namespaces[Math.floor(i / 4) % namespaces.length]!;
    const j = Math.floor(i / 4);
    switch (i % 4) {
      case 0:
        scopes.push({ kind: 'all' });
        break;
      case 1:
        scopes.push({ kind: 'namespace', namespace: ns });
        break;
      case 2: {
        const shard = SHARDS[j % SHARDS.length]!;
        const variants: LabelRequirement[][] = [
          [{ key: 'soak-shard', op: '=', values: [shard] }],
          [{ key: 'soak-shard', op: 'in', values: [shard, SHARDS[(j + 1) % SHARDS.length]!] }],
          [
            { key: 'soak-tier', op: '=', values: ['gold'] },
            { key: 'soak-shard', op: '!=', values: [shard] },
          ],
        ];
        const labels = variants[j % variants.length]!;
        scopes.push(j % 2 === 0 ? { kind: 'labels', labels } : { kind: 'labels', namespace: ns, labels });
        break;
      }
      default:
        scopes.push({ kind: 'object', namespace: ns, name: objectName((j * 7) % objectsPerNamespace) });
    }
  }
  return scopes;
}

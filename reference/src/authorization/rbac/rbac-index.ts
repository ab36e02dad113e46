// The role-based access control policy held in memory: the roles, cluster roles and their
// bindings, indexed by subject, kept current by watching their stores (a write is seen by
// the next request). It answers synchronously which binding allows a request, and which rules
// a user holds (escalation checks, rules reviews).
import { RBAC_GROUP } from '../../registry/kinds/rbac-common.ts';
import type { UserInfo } from '../../registry/types.ts';
import type { ChangeEvent, KObject, Storage } from '../../storage/types.ts';
import type { AuthorizationAttributes } from '../types.ts';
import { type PolicyRule, ruleAllows, toRules } from './rules.ts';

export { RBAC_GROUP };

const SA_PREFIX = 'system:serviceaccount:';

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

interface Binding {
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  name: string;
  namespace: string;
  roleKind: string;
  roleName: string;
  subjects: Subject[];
}

/** A binding and the subject of it that names the user. */
type Match = [Binding, Subject];

/**
 * RBAC's answer. An allow's reason (`RBAC: allowed by ...`) is written only when read (the
 * audit log, a review): most requests never read it. A refusal's reason names the roles that
 * could not be found.
 */
export type Allowed = { allowed: true; readonly reason: string } | { allowed: false; reason: string };

class AllowedBy {
  readonly allowed = true as const;
  constructor(private readonly match: Match) {}
  get reason(): string {
    return `RBAC: allowed by ${describe(this.match)}`;
  }
}

/** Whom a subject names: a user or a group, by name (service accounts are users). */
function subjectKey(s: Subject, bindingNamespace: string): ['users' | 'groups', string] | undefined {
  switch (s.kind) {
    case 'User':
      return ['users', s.name];
    case 'Group':
      return ['groups', s.name];
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns ? ['users', `${SA_PREFIX}${ns}:${s.name}`] : undefined;
    }
    default:
      return undefined;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount')
    return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

function describe([b, s]: Match): string {
  const name = b.kind === 'RoleBinding' ? `${b.name}/${b.namespace}` : b.name;
  return `${b.kind} ${JSON.stringify(name)} of ${b.roleKind} ${JSON.stringify(b.roleName)} to ${describeSubject(s, b.namespace)}`;
}

function toBinding(kind: Binding['kind'], o: KObject): Binding {
  const ref = (o.roleRef ?? {}) as { kind?: unknown; name?: unknown };
  const subjects: Subject[] = [];
  if (Array.isArray(o.subjects))
    for (const s of o.subjects as Record<string, unknown>[])
      if (s && typeof s.kind === 'string' && typeof s.name === 'string')
        subjects.push({
          kind: s.kind,
          name: s.name,
          namespace: typeof s.namespace === 'string' ? s.namespace : undefined,
        });
  return {
    kind,
    name: o.metadata.name ?? '',
    namespace: o.metadata.namespace ?? '',
    roleKind: typeof ref.kind === 'string' ? ref.kind : '',
    roleName: typeof ref.name === 'string' ? ref.name : '',
    subjects,
  };
}

class SubjectIndex {
  /**
   * The bindings naming each user and each group, by the name itself: a request looks up the
   * strings its user already has (whose hashes V8 keeps), not keys made afresh for it.
   */
  private readonly users = new Map<string, Map<Binding, Subject>>();
  private readonly groups = new Map<string, Map<Binding, Subject>>();
  private readonly byName = new Map<string, Binding>();

  set(b: Binding): void {
    this.delete(b.name);
    this.byName.set(b.name, b);
    for (const s of b.subjects) {
      const k = subjectKey(s, b.namespace);
      if (k === undefined) continue;
      const index = this[k[0]];
      let m = index.get(k[1]);
      if (!m) index.set(k[1], (m = new Map()));
      if (!m.has(b)) m.set(b, s);
    }
  }

  delete(name: string): void {
    const b = this.byName.get(name);
    if (!b) return;
    this.byName.delete(name);
    for (const s of b.subjects) {
      const k = subjectKey(s, b.namespace);
      if (k === undefined) continue;
      const index = this[k[0]];
      const m = index.get(k[1]);
      if (!m) continue;
      m.delete(b);
      if (m.size === 0) index.delete(k[1]);
    }
  }

  get size(): number {
    return this.byName.size;
  }

  /** The bindings naming the user (by name or one of its groups), each with the subject that matched. */
  matches(user: UserInfo, out: Match[]): void {
    // loops, not a closure: this runs for every request
    const mine = this.users.get(user.username);
    if (mine) for (const e of mine) out.push(e);
    for (const g of user.groups) {
      const m = this.groups.get(g);
      if (m) for (const e of m) out.push(e);
    }
  }
}

export class RbacIndex {
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  private readonly roles = new Map<string, PolicyRule[]>();
  private readonly clusterBindings = new SubjectIndex();
  private readonly roleBindings = new Map<string, SubjectIndex>();
  private readonly stops: (() => void)[] = [];

  /** Loads the four kinds from storage and follows their changes. */
  constructor(storage: Storage) {
    this.follow(storage, 'clusterroles', (o, gone) => {
      if (gone) this.clusterRoles.delete(o.metadata.name!);
      else this.clusterRoles.set(o.metadata.name!, toRules(o.rules));
    });
    this.follow(storage, 'roles', (o, gone) => {
      const k = `${o.metadata.namespace}/${o.metadata.name}`;
      if (gone) this.roles.delete(k);
      else this.roles.set(k, toRules(o.rules));
    });
    this.follow(storage, 'clusterrolebindings', (o, gone) => {
      if (gone) this.clusterBindings.delete(o.metadata.name!);
      else this.clusterBindings.set(toBinding('ClusterRoleBinding', o));
    });
    this.follow(storage, 'rolebindings', (o, gone) => {
      const ns = o.metadata.namespace ?? '';
      let idx = this.roleBindings.get(ns);
      if (gone) {
        idx?.delete(o.metadata.name!);
        if (idx?.size === 0) this.roleBindings.delete(ns);
        return;
      }
      if (!idx) this.roleBindings.set(ns, (idx = new SubjectIndex()));
      idx.set(toBinding('RoleBinding', o));
    });
  }

  private follow(storage: Storage, plural: string, apply: (o: KObject, gone: boolean) => void): void {
    const bucket = `${RBAC_GROUP}/${plural}`;
    const rev = storage.revision();
    for (const s of storage.list(bucket, '')) apply(s.obj, false);
    this.stops.push(storage.watch(bucket, rev, (ev: ChangeEvent) => apply(ev.obj, ev.type === 'DELETED')));
  }

  stop(): void {
    for (const s of this.stops.splice(0)) s();
  }

  /** The rules of a role reference; undefined when the role does not exist. */
  roleRules(kind: string, name: string, namespace: string): PolicyRule[] | undefined {
    if (kind === 'ClusterRole') return this.clusterRoles.get(name);
    if (kind === 'Role') return this.roles.get(`${namespace}/${name}`);
    return undefined;
  }

  /** The bindings that apply to a user: cluster-wide ones, then those of the namespace. */
  private matches(user: UserInfo, namespace: string): Match[] {
    const out: Match[] = [];
    this.clusterBindings.matches(user, out);
    if (namespace) this.roleBindings.get(namespace)?.matches(user, out);
    return out;
  }

  private rulesOf(b: Binding, errs: string[]): PolicyRule[] {
    const rules = this.roleRules(b.roleKind, b.roleName, b.namespace);
    if (!rules) errs.push(notFound(b.roleKind, b.roleName));
    return rules ?? [];
  }

  /** Whether a binding allows the request, and which (Kubernetes' reasons). */
  decide(a: AuthorizationAttributes): Allowed {
    const errs: string[] = [];
    for (const m of this.matches(a.user, a.namespace)) {
      for (const r of this.rulesOf(m[0], errs)) if (ruleAllows(a, r)) return new AllowedBy(m);
    }
    return { allowed: false, reason: errs.length ? `RBAC: ${aggregate(errs)}` : '' };
  }

  /** Every rule the user holds in a namespace (cluster-wide ones included), and the roles not found. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const errors: string[] = [];
    const rules: PolicyRule[] = [];
    for (const m of this.matches(user, namespace)) rules.push(...this.rulesOf(m[0], errors));
    return { rules, errors };
  }
}

export function notFound(kind: string, name: string): string {
  return `${kind.toLowerCase()}.${RBAC_GROUP} ${JSON.stringify(name)} not found`;
}

/** Go's aggregate error text: one error as is, several in brackets. */
export function aggregate(errs: string[]): string {
  const u = [...new Set(errs)];
  return u.length === 1 ? u[0]! : `[${u.join(', ')}]`;
}

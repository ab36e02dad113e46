// API priority and fairness, its classification (Kubernetes 1.28's APF filter, without the
// queuing): each request is matched against the FlowSchemas in order of matchingPrecedence (then
// name), the first whose rules match the request's user and verb, resource or path wins, and its
// priority level is the request's. The server says which in the response headers
// `X-Kubernetes-PF-FlowSchema-UID` and `X-Kubernetes-PF-PriorityLevel-UID`, as 1.28 does; a
// FlowSchema naming a missing priority level (dangling) is passed over. The nominal concurrency
// of each priority level (`apiserver_flowcontrol_nominal_limit_seats`) divides the server's
// 600 seats (1.28's default --max-requests-inflight 400 plus --max-mutating-requests-inflight
// 200) by the levels' nominal concurrency shares, rounded up. Requests are never queued or
// refused here: the reference serves every request at once.
import { type Informer, inform } from '../controllers/informer.ts';
import { FLOWCONTROL_GROUP } from '../registry/kinds/flowcontrol-common.ts';
import type { Registry } from '../registry/registry.ts';
import type { KObject } from '../storage/types.ts';

/** 1.28's default server concurrency limit: --max-requests-inflight + --max-mutating-requests-inflight. */
export const SERVER_CONCURRENCY_LIMIT = 400 + 200;
/** The default nominal concurrency shares of a limited priority level. */
const DEFAULT_SHARES = 30;

/** What a request is, as the classifier matches it. */
export interface FlowRequest {
  user: { username: string; groups?: string[] };
  /** The request's verb (get, list, create, ...; a non-resource request's is the lower-cased method). */
  verb: string;
  resourceRequest: boolean;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  path: string;
}

export interface Classification {
  flowSchema: KObject;
  priorityLevel: KObject;
  /** The response headers that name them (made once per classification, not per request). */
  headers: Readonly<Record<string, string>>;
}

type Rec = Record<string, any>;

/**
 * Whom a rule's subjects name, as sets looked up once a request (made once a FlowSchema set):
 * walking every subject of every FlowSchema with closures was a twentieth of a GET by a user
 * classified under global-default, the last but one FlowSchema.
 */
interface Subjects {
  /** A User `*` or a Group `*`: every user. */
  anyone: boolean;
  users: Set<string>;
  groups: Set<string>;
  /** ServiceAccount subjects: the username's prefix (`system:serviceaccount:<namespace>:`) and name (`*`: any). */
  accounts: { prefix: string; name: unknown }[];
}

interface CompiledRule {
  subjects: Subjects;
  rule: Rec;
}

interface Ordered extends Classification {
  rules: CompiledRule[];
}

function classification(flowSchema: KObject, priorityLevel: KObject): Ordered {
  const rules = (flowSchema.spec as Rec)?.rules;
  return {
    flowSchema,
    priorityLevel,
    headers: {
      'X-Kubernetes-PF-PriorityLevel-UID': priorityLevel.metadata.uid ?? '',
      'X-Kubernetes-PF-FlowSchema-UID': flowSchema.metadata.uid ?? '',
    },
    rules: Array.isArray(rules)
      ? rules.map((rule: Rec) => ({ subjects: subjectsOf(rule?.subjects), rule }))
      : [],
  };
}

function subjectsOf(list: unknown): Subjects {
  const out: Subjects = { anyone: false, users: new Set(), groups: new Set(), accounts: [] };
  for (const s of Array.isArray(list) ? (list as Rec[]) : []) {
    switch (s?.kind) {
      case 'User':
        if (s.user?.name === '*') out.anyone = true;
        else if (typeof s.user?.name === 'string') out.users.add(s.user.name);
        break;
      case 'Group':
        if (s.group?.name === '*') out.anyone = true;
        else if (typeof s.group?.name === 'string') out.groups.add(s.group.name);
        break;
      case 'ServiceAccount':
        out.accounts.push({
          prefix: `system:serviceaccount:${s.serviceAccount?.namespace}:`,
          name: s.serviceAccount?.name,
        });
        break;
    }
  }
  return out;
}

const has = (list: unknown, value: string, all: string) =>
  Array.isArray(list) && (list.includes(all) || list.includes(value));

function matchesSubjects(user: FlowRequest['user'], s: Subjects): boolean {
  if (s.anyone || s.users.has(user.username)) return true;
  if (s.groups.size) for (const g of user.groups ?? []) if (s.groups.has(g)) return true;
  for (const a of s.accounts)
    if (
      user.username.startsWith(a.prefix) &&
      (a.name === '*' || user.username.slice(a.prefix.length) === String(a.name))
    )
      return true;
  return false;
}

function matchesResourceRule(r: FlowRequest, resource: string, rule: Rec): boolean {
  if (!has(rule.verbs, r.verb, '*')) return false;
  if (!has(rule.resources, resource, '*')) return false;
  if (!has(rule.apiGroups, r.group, '*')) return false;
  if (r.namespace === '') return rule.clusterScope === true;
  return has(rule.namespaces, r.namespace, '*');
}

function matchesNonResourceURL(urls: unknown, path: string): boolean {
  if (!Array.isArray(urls)) return false;
  for (const u of urls as string[]) {
    if (u === '*' || u === path) return true;
    let prefix = u.endsWith('*') ? u.slice(0, -1) : u;
    if (!prefix.endsWith('/')) prefix += '/';
    if (path.startsWith(prefix)) return true;
  }
  return false;
}

function matchesRule(r: FlowRequest, resource: string, c: CompiledRule): boolean {
  if (!matchesSubjects(r.user, c.subjects)) return false;
  const rule = c.rule;
  if (r.resourceRequest) {
    for (const x of rule.resourceRules ?? []) if (matchesResourceRule(r, resource, x)) return true;
    return false;
  }
  for (const x of rule.nonResourceRules ?? [])
    if (has(x.verbs, r.verb, '*') && matchesNonResourceURL(x.nonResourceURLs, r.path)) return true;
  return false;
}

/** A priority level's nominal concurrency shares (an exempt level's default is 0). */
function shares(pl: KObject): number {
  const spec = (pl.spec ?? {}) as Rec;
  if (spec.type === 'Exempt') return spec.exempt?.nominalConcurrencyShares ?? 0;
  return spec.limited?.nominalConcurrencyShares ?? spec.limited?.assuredConcurrencyShares ?? DEFAULT_SHARES;
}

export class FlowClassifier {
  private readonly schemas: Informer | undefined;
  private readonly levels: Informer | undefined;
  /** The FlowSchemas in matching order with their priority levels; rebuilt after a change. */
  private order: Ordered[] | undefined;

  constructor(registry: Registry) {
    const changed = () => {
      this.order = undefined;
    };
    this.schemas = inform(registry, FLOWCONTROL_GROUP, 'flowschemas', changed);
    this.levels = inform(registry, FLOWCONTROL_GROUP, 'prioritylevelconfigurations', changed);
  }

  private ordered(): Ordered[] {
    if (this.order) return this.order;
    const levels = new Map([...(this.levels?.cache.values() ?? [])].map((pl) => [pl.metadata.name!, pl]));
    const out: Ordered[] = [];
    for (const fs of this.schemas?.cache.values() ?? []) {
      const pl = levels.get((fs.spec as Rec)?.priorityLevelConfiguration?.name);
      if (pl) out.push(classification(fs, pl));
    }
    const precedence = (c: Classification) => Number((c.flowSchema.spec as Rec)?.matchingPrecedence ?? 0);
    out.sort(
      (a, b) =>
        precedence(a) - precedence(b) || (a.flowSchema.metadata.name! < b.flowSchema.metadata.name! ? -1 : 1),
    );
    this.order = out;
    return out;
  }

  /** The FlowSchema and priority level of a request (none when no FlowSchema matches). */
  classify(r: FlowRequest): Classification | undefined {
    const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
    for (const c of this.ordered()) for (const rule of c.rules) if (matchesRule(r, resource, rule)) return c;
    return undefined;
  }

  /** Each priority level's nominal concurrency limit, by name. */
  nominalLimits(): Map<string, number> {
    const levels = [...(this.levels?.cache.values() ?? [])];
    const sum = levels.reduce((n, pl) => n + shares(pl), 0);
    const out = new Map<string, number>();
    for (const pl of levels)
      out.set(pl.metadata.name!, sum > 0 ? Math.ceil((SERVER_CONCURRENCY_LIMIT * shares(pl)) / sum) : 0);
    return out;
  }

  stop(): void {
    this.schemas?.stop();
    this.levels?.stop();
  }
}

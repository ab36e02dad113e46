// Faults against doc2's server-side apply (field ownership, conflicts, managedFields, the apply
// endpoint), one rule each; suites/apply must catch every one.
import { parse as parseYaml } from 'yaml';
import type { FaultHooks, ProxiedRequest, ProxiedResponse, Upstream } from '../proxy.ts';
import { header, mapJson } from '../util.ts';

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

const contentType = (r: ProxiedRequest) =>
  (header(r, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
const isApply = (r: ProxiedRequest) => r.method === 'PATCH' && contentType(r) === APPLY;
const isOtherWrite = (r: ProxiedRequest) =>
  (r.method === 'PATCH' || r.method === 'PUT' || r.method === 'POST') && !isApply(r);

function withQuery(r: ProxiedRequest, f: (q: URLSearchParams) => void): ProxiedRequest {
  const url = new URL(r.url);
  f(url.searchParams);
  return { ...r, url };
}

function parseBody(r: ProxiedRequest): any {
  const text = r.body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    try {
      return parseYaml(text);
    } catch {
      return undefined;
    }
  }
}

const withBody = (r: ProxiedRequest, body: unknown, ct?: string): ProxiedRequest => ({
  ...r,
  headers: ct ? { ...r.headers, 'content-type': ct } : r.headers,
  body: Buffer.from(JSON.stringify(body)),
});

/** The kinds of the resources the apply suite writes, by plural. */
const KINDS: Record<string, string> = {
  configmaps: 'ConfigMap',
  deployments: 'Deployment',
  widgets: 'Widget',
  pods: 'Pod',
};

/** The apply request with its intent repaired by `f` (left alone when `f` answers undefined). */
function repairIntent(r: ProxiedRequest, f: (body: any) => unknown): ProxiedRequest {
  if (!isApply(r)) return r;
  const b = parseBody(r);
  const fixed = b && typeof b === 'object' && !Array.isArray(b) ? f(b) : undefined;
  return fixed === undefined ? r : withBody(r, fixed);
}

const CRD_COLLECTION = /^\/apis\/apiextensions\.orch\.io\/v1\/customresourcedefinitions(\/[^/]+)?$/;

/**
 * A fault on one merge strategy marker of the suite's Widget: the definitions of Widgets the
 * suite creates (or changes) go upstream with one field of spec given another schema, so the
 * server merges that field by another marker than the definition the suite wrote.
 */
function markerFault(
  name: string,
  field: string,
  change: (f: Record<string, unknown>) => Record<string, unknown>,
): FaultHooks {
  return {
    name,
    request: (r) => {
      if ((r.method !== 'POST' && r.method !== 'PUT') || !CRD_COLLECTION.test(r.url.pathname)) return r;
      const d = parseBody(r);
      if (d?.spec?.names?.kind !== 'Widget' || !Array.isArray(d.spec.versions)) return r;
      const versions = d.spec.versions.map((v: any) => {
        const props = v?.schema?.openAPIV3Schema?.properties?.spec?.properties;
        if (!props?.[field]) return v;
        const spec = {
          ...v.schema.openAPIV3Schema.properties.spec,
          properties: { ...props, [field]: change(props[field]) },
        };
        const openAPIV3Schema = {
          ...v.schema.openAPIV3Schema,
          properties: { ...v.schema.openAPIV3Schema.properties, spec },
        };
        return { ...v, schema: { ...v.schema, openAPIV3Schema } };
      });
      return withBody(r, { ...d, spec: { ...d.spec, versions } });
    },
  };
}

/** The list type each Widget group's spec.topo was changed to by an update of its definition. */
const topologies = new Map<string, string>();
function learnTopology(r: ProxiedRequest): void {
  if (r.method !== 'PUT' || !CRD_COLLECTION.test(r.url.pathname)) return;
  const d = parseBody(r);
  const topo = d?.spec?.versions?.[0]?.schema?.openAPIV3Schema?.properties?.spec?.properties?.topo;
  if (typeof d?.spec?.group === 'string' && topo) topologies.set(d.spec.group, topo['x-orch-list-type']);
}
const topologyOf = (r: ProxiedRequest) =>
  topologies.get(/^\/apis\/([^/]+)\//.exec(r.url.pathname)?.[1] ?? '');
/** Applies held by apply-topology-set-keeps-atomic-owner (the read sent in their place, to the apply). */
const heldApplies = new WeakMap<ProxiedRequest, ProxiedRequest>();

/** Writes held by the ownership faults below (the read of the object sent in their place, to the write). */
const heldOwnership = new WeakMap<ProxiedRequest, ProxiedRequest>();
const OBJECT_PATH = /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/namespaces\/[^/]+\/[^/]+\/[^/]+$/;
const jsonOf = (b: Buffer): any => {
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return undefined;
  }
};

/** A GET of the object a write names, sent in its place; `held` remembers the write. */
function readInstead(r: ProxiedRequest, held: WeakMap<ProxiedRequest, ProxiedRequest>): ProxiedRequest {
  const read: ProxiedRequest = {
    ...r,
    method: 'GET',
    body: Buffer.alloc(0),
    url: new URL(r.url.pathname, r.url),
  };
  held.set(read, r);
  return read;
}

/** A write of an object (not a dry run) held, so that the object is read first. */
function holdWrite(r: ProxiedRequest, when: boolean): ProxiedRequest {
  if (!when || !OBJECT_PATH.test(r.url.pathname) || r.url.searchParams.has('dryRun')) return r;
  return readInstead(r, heldOwnership);
}

/** A merge patch of the object written by `write` (no query: no manager, no force). */
const followUp = (write: ProxiedRequest, body: unknown): ProxiedRequest => ({
  ...write,
  method: 'PATCH',
  url: new URL(write.url.pathname, write.url),
  headers: { ...write.headers, 'content-type': MERGE },
  body: Buffer.from(JSON.stringify(body)),
});

/**
 * Sends a held write, then stores the ownership `f` computes from the object before and after it
 * (a merge patch that sets only metadata.managedFields, which the server takes as they are when
 * no value changes), after first writing back the values `restore` gives; the write's answer
 * shows the object as then stored. Stored, so every later request sees the same ownership.
 */
async function afterHeldWrite(
  r: ProxiedRequest,
  res: ProxiedResponse,
  up: Upstream,
  f: (before: any, after: any, write: ProxiedRequest) => unknown[] | undefined,
  restore?: (before: any, after: any, write: ProxiedRequest) => Record<string, unknown> | undefined,
): Promise<ProxiedResponse> {
  const write = heldOwnership.get(r);
  if (!write) return res;
  const before = res.status === 200 ? jsonOf(res.body) : undefined;
  const out = await up.send(write);
  const after = out.status < 300 ? jsonOf(out.body) : undefined;
  if (!before || !after) return out;
  const list = f(before, after, write);
  const values = restore?.(before, after, write);
  if (values) {
    const w = await up.send(followUp(write, values));
    if (w.status !== 200) return out;
  }
  if (!list?.length) return out;
  const fix = await up.send(followUp(write, { metadata: { managedFields: list } }));
  return fix.status === 200 ? { ...out, body: fix.body } : out;
}

const entryKey = (e: any) => `${e?.manager}\u0000${e?.operation}`;

/**
 * The top-level scalar fields of a ConfigMap's data (of another kind's spec) that an apply removed
 * or reset to their default, and that its manager alone owned before it.
 */
function omittedFields(
  before: any,
  after: any,
  write: ProxiedRequest,
): { section: string; keys: string[] } | undefined {
  const section = before?.kind === 'ConfigMap' ? 'data' : 'spec';
  const was = before?.[section];
  if (!was || typeof was !== 'object') return undefined;
  const manager = write.url.searchParams.get('fieldManager');
  const owners = (m: any[], k: string) =>
    (m ?? []).filter((e: any) => e?.fieldsV1?.[`f:${section}`]?.[`f:${k}`] !== undefined);
  const keys = Object.keys(was).filter((k) => {
    if (was[k] !== null && typeof was[k] === 'object') return false;
    const o = owners(before.metadata?.managedFields, k);
    const still = owners(after?.metadata?.managedFields, k).some((e: any) => e.manager === manager);
    return o.length === 1 && o[0].manager === manager && !still && after?.[section]?.[k] !== was[k];
  });
  return keys.length ? { section, keys } : undefined;
}

/** A 409 Conflict made by the proxy: `manager` owns each of `fields` (paths like .data.a). */
function conflict(manager: string, fields: string[]): ProxiedResponse {
  const message = `Apply failed with ${fields.length} conflict${fields.length === 1 ? '' : 's'}: conflict with "${manager}": ${fields.join(', ')}`;
  return {
    status: 409,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message,
        reason: 'Conflict',
        details: {
          causes: fields.map((field) => ({
            reason: 'FieldManagerConflict',
            message: `conflict with "${manager}"`,
            field,
          })),
        },
        code: 409,
      }),
    ),
  };
}

/** The data keys an entry owns. */
const dataKeys = (e: any): string[] =>
  Object.keys(e?.fieldsV1?.['f:data'] ?? {})
    .filter((k) => k.startsWith('f:'))
    .map((k) => k.slice(2));

/** A copy of a managedFields entry with data keys added to and removed from what it owns. */
function withDataKeys(e: any, add: string[], drop: string[]): any {
  const data: Record<string, unknown> = { ...(e?.fieldsV1?.['f:data'] ?? {}) };
  for (const k of drop) delete data[`f:${k}`];
  for (const k of add) data[`f:${k}`] = {};
  const fieldsV1 = { ...(e?.fieldsV1 ?? {}), 'f:data': data };
  if (!Object.keys(data).length) delete fieldsV1['f:data'];
  return { ...e, fieldsV1 };
}

/** Applies answered by apply-after-reset-conflicts (the read sent in their place, to the apply). */
const heldAfterReset = new WeakMap<ProxiedRequest, ProxiedRequest>();

/** The top-level fields an entry owns in a section (data of a ConfigMap, spec of other kinds). */
const sectionKeys = (e: any, section: string): string[] =>
  Object.keys(e?.fieldsV1?.[`f:${section}`] ?? {})
    .filter((k) => k.startsWith('f:'))
    .map((k) => k.slice(2));

/** A copy of a managedFields entry without some top-level fields of a section. */
function withoutSectionKeys(e: any, section: string, drop: string[]): any {
  const sec: Record<string, unknown> = { ...(e?.fieldsV1?.[`f:${section}`] ?? {}) };
  for (const k of drop) delete sec[`f:${k}`];
  const fieldsV1 = { ...(e?.fieldsV1 ?? {}), [`f:${section}`]: sec };
  if (!Object.keys(sec).filter((k) => k !== '.').length) delete fieldsV1[`f:${section}`];
  return { ...e, fieldsV1 };
}

/**
 * The top-level scalar fields of a ConfigMap's data (another kind's spec) an apply left out that
 * its manager shared with another manager before.
 */
function sharedOmitted(
  before: any,
  after: any,
  write: ProxiedRequest,
): { section: string; keys: string[] } | undefined {
  const section = before?.kind === 'ConfigMap' ? 'data' : 'spec';
  const manager = write.url.searchParams.get('fieldManager');
  const was: any[] = before?.metadata?.managedFields ?? [];
  const now: any[] = after?.metadata?.managedFields ?? [];
  const mine = (l: any[]) =>
    sectionKeys(
      l.find((e) => e.manager === manager && e.operation === 'Apply'),
      section,
    );
  const value = after?.[section] ?? {};
  const keys = mine(was).filter(
    (k) =>
      !mine(now).includes(k) &&
      k in value &&
      (value[k] === null || typeof value[k] !== 'object') &&
      was.some((e) => e.manager !== manager && sectionKeys(e, section).includes(k)),
  );
  return keys.length ? { section, keys } : undefined;
}

/** Applies held by apply-shared-owner-changes-freely (the read sent in their place, to the apply). */
const heldShared = new WeakMap<ProxiedRequest, ProxiedRequest>();
/** Applies held by apply-configmap-data-atomic (the read sent in their place, to the apply). */
const heldAtomicData = new WeakMap<ProxiedRequest, ProxiedRequest>();

/** The data keys of each object path's refused applies, by manager (apply-dropped-field-kept-owned). */
const refusedKeys = new Map<string, string[]>();

/** The data keys an apply leaves out that only other managers' updates own (never applied by its manager). */
function unapplied(before: any, _after: any, write: ProxiedRequest): string[] | undefined {
  if (before?.kind !== 'ConfigMap' || !before.data) return undefined;
  const manager = write.url.searchParams.get('fieldManager');
  const sent = parseBody(write)?.data ?? {};
  const entries: any[] = before.metadata?.managedFields ?? [];
  const keys = Object.keys(before.data).filter((k) => {
    const owners = entries.filter((e) => dataKeys(e).includes(k));
    return (
      !(k in sent) &&
      owners.length > 0 &&
      owners.every((e) => e.operation === 'Update' && e.manager !== manager)
    );
  });
  return keys.length ? keys : undefined;
}

/** The Widget lists whose items are owned one by one (a set and a map list keyed by name). */
const ITEM_LISTS = ['setList', 'mapList'];

/** Whether an item of a Widget list is the one an item key of fieldsV1 names (v:"a", k:{"name":"x"}). */
function itemIs(item: any, key: string): boolean {
  try {
    if (key.startsWith('v:')) return JSON.stringify(item) === JSON.stringify(JSON.parse(key.slice(2)));
    if (key.startsWith('k:')) return item?.name === JSON.parse(key.slice(2))?.name;
  } catch {
    return false;
  }
  return false;
}

/**
 * The items an apply dropped from its manager's Widget list that another manager still owns
 * (so the server rightly kept them): list -> their item keys.
 */
function droppedShared(before: any, after: any, write: ProxiedRequest): Map<string, string[]> | undefined {
  if (before?.kind !== 'Widget') return undefined;
  const manager = write.url.searchParams.get('fieldManager');
  const entry = (o: any) =>
    (o?.metadata?.managedFields ?? []).find((e: any) => e?.manager === manager && e?.operation === 'Apply');
  const out = new Map<string, string[]>();
  for (const list of ITEM_LISTS) {
    const items = (o: any) =>
      Object.keys(entry(o)?.fieldsV1?.['f:spec']?.[`f:${list}`] ?? {}).filter((k) => k !== '.');
    const now = items(after);
    const kept = items(before).filter(
      (k) => !now.includes(k) && (after?.spec?.[list] ?? []).some((i: any) => itemIs(i, k)),
    );
    if (kept.length) out.set(list, kept);
  }
  return out.size ? out : undefined;
}

/** Applies held by the Deployment container faults (the read sent in their place, to the apply). */
const heldContainers = new WeakMap<ProxiedRequest, ProxiedRequest>();
const holdDeploymentApply = (r: ProxiedRequest): ProxiedRequest => {
  if (
    !isApply(r) ||
    !/\/deployments\/[^/]+$/.test(r.url.pathname) ||
    r.url.searchParams.get('force') === 'true'
  )
    return r;
  return readInstead(r, heldContainers);
};
/** The container item keys (k:{"name":...}) of a Deployment entry. */
const containerItems = (e: any): string[] =>
  Object.keys(e?.fieldsV1?.['f:spec']?.['f:template']?.['f:spec']?.['f:containers'] ?? {}).filter((k) =>
    k.startsWith('k:'),
  );

/** Applies held by apply-custom-create-drops-set-items (the read sent in their place, to the apply). */
const heldCustomCreates = new WeakMap<ProxiedRequest, ProxiedRequest>();

/** The Authorization header of the last request that had one (apply-anonymous-as-caller). */
let lastCredentials = '';

/** Applies `f` to every object (and list item) in a JSON response. */
function mapObjects(res: ProxiedResponse, f: (o: any) => void): ProxiedResponse {
  return mapJson(res, (j) => {
    if (j && Array.isArray(j.items)) for (const o of j.items) f(o);
    else if (j && j.kind !== 'Status') f(j);
    return j;
  });
}

/** Each member path of a fieldsV1 map, as the list of its keys. */
function members(fields: unknown, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  if (!fields || typeof fields !== 'object') return out;
  const keys = Object.keys(fields);
  if (keys.length === 0 && prefix.length) out.push(prefix);
  for (const k of keys) {
    if (k === '.') out.push(prefix);
    else out.push(...members((fields as Record<string, unknown>)[k], [...prefix, k]));
  }
  return out;
}

function encode(paths: string[][]): Record<string, unknown> {
  const root: Record<string, any> = {};
  const isMember = new Set(paths.map((p) => JSON.stringify(p)));
  for (const p of paths) {
    let node = root;
    for (const k of p) node = node[k] ??= {};
  }
  const mark = (node: Record<string, any>, prefix: string[]) => {
    for (const k of Object.keys(node)) {
      const child = node[k];
      const path = [...prefix, k];
      if (Object.keys(child).length && isMember.has(JSON.stringify(path))) child['.'] = {};
      mark(child, path);
    }
  };
  mark(root, []);
  return root;
}

export const HOOKS: FaultHooks[] = [
  {
    name: 'apply-always-forced',
    request: (r) => (isApply(r) ? withQuery(r, (q) => q.set('force', 'true')) : r),
  },
  {
    name: 'apply-conflict-retried-with-force',
    response: async (r, res, up) =>
      isApply(r) && res.status === 409 ? up.send(withQuery(r, (q) => q.set('force', 'true'))) : res,
  },
  {
    name: 'apply-managed-fields-stripped',
    response: (_r, res) =>
      mapObjects(res, (o) => {
        if (o?.metadata) delete o.metadata.managedFields;
      }),
  },
  {
    name: 'apply-field-manager-renamed',
    request: (r) =>
      isApply(r) && r.url.searchParams.has('fieldManager')
        ? withQuery(r, (q) => q.set('fieldManager', 'proxy-manager'))
        : r,
  },
  {
    name: 'apply-as-merge-patch',
    request: (r) => {
      if (!isApply(r)) return r;
      const body = parseBody(r);
      if (body === undefined) return r;
      return withBody(
        withQuery(r, (q) => q.delete('force')),
        body,
        MERGE,
      );
    },
  },
  {
    name: 'apply-shared-ownership-dropped',
    response: (_r, res) =>
      mapObjects(res, (o) => {
        const entries = o?.metadata?.managedFields;
        if (!Array.isArray(entries)) return;
        const seen = new Set<string>();
        for (let i = entries.length - 1; i >= 0; i--) {
          const e = entries[i];
          const own = members(e?.fieldsV1).filter((p) => !seen.has(JSON.stringify(p)));
          for (const p of own) seen.add(JSON.stringify(p));
          e.fieldsV1 = encode(own);
        }
      }),
  },
  {
    name: 'apply-managed-fields-reset-ignored',
    request: (r) => {
      if (!isOtherWrite(r)) return r;
      const body = parseBody(r);
      if (!body || typeof body !== 'object') return r;
      const isReset = (v: unknown) =>
        Array.isArray(v) && v.length === 1 && v[0] && Object.keys(v[0]).length === 0;
      if (contentType(r) === JSON_PATCH && Array.isArray(body)) {
        let hit = false;
        for (const op of body)
          if (op?.path === '/metadata/managedFields' && isReset(op.value)) {
            op.value = [];
            hit = true;
          }
        return hit ? withBody(r, body) : r;
      }
      if (isReset(body?.metadata?.managedFields)) {
        body.metadata.managedFields = [];
        return withBody(r, body);
      }
      return r;
    },
  },
  {
    name: 'apply-body-managed-fields-accepted',
    request: (r) => {
      if (!isApply(r)) return r;
      const body = parseBody(r);
      if (!body?.metadata || !('managedFields' in body.metadata)) return r;
      delete body.metadata.managedFields;
      return withBody(r, body);
    },
  },
  {
    name: 'apply-field-manager-defaulted',
    request: (r) =>
      isApply(r) && !r.url.searchParams.get('fieldManager')
        ? withQuery(r, (q) => q.set('fieldManager', 'proxy-default'))
        : r,
  },
  {
    name: 'apply-operation-recorded-as-update',
    response: (_r, res) =>
      mapObjects(res, (o) => {
        for (const e of o?.metadata?.managedFields ?? [])
          if (e?.operation === 'Apply') e.operation = 'Update';
      }),
  },
  {
    name: 'apply-entry-time-missing',
    response: (_r, res) =>
      mapObjects(res, (o) => {
        for (const e of o?.metadata?.managedFields ?? []) if (e) delete e.time;
      }),
  },
  {
    name: 'apply-entry-time-dropped',
    // changed: the fault used to drop time, which doc2 allows (it does not say every entry has
    // one, and Kubernetes leaves it out of an entry whose apply changed no value): no case can
    // catch that; a time that is not a timestamp breaks the rule
    response: (_r, res) =>
      mapObjects(res, (o) => {
        for (const e of o?.metadata?.managedFields ?? []) if (e?.time) e.time = 'yesterday';
      }),
  },
  {
    name: 'apply-dry-run-persists',
    response: async (r, res, up) => {
      if (isApply(r) && r.url.searchParams.has('dryRun') && res.status < 300)
        await up.send(withQuery(r, (q) => q.delete('dryRun')));
      return res;
    },
  },
  {
    name: 'apply-user-agent-ignored',
    request: (r) => {
      if (!isOtherWrite(r) || r.url.searchParams.get('fieldManager') || !r.headers['user-agent']) return r;
      const headers = { ...r.headers };
      delete headers['user-agent'];
      return { ...r, headers };
    },
  },
  {
    name: 'apply-conflict-causes-dropped',
    response: (r, res) =>
      isApply(r) && res.status === 409
        ? mapJson(res, (j) => {
            if (j?.details) delete j.details.causes;
            return j;
          })
        : res,
  },
  {
    name: 'apply-item-keys-as-indices',
    response: (_r, res) =>
      mapObjects(res, (o) => {
        const rekey = (node: unknown): unknown => {
          if (!node || typeof node !== 'object') return node;
          let i = 0;
          const out: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(node))
            out[k.startsWith('k:') || k.startsWith('v:') ? `i:${i++}` : k] = rekey(v);
          return out;
        };
        for (const e of o?.metadata?.managedFields ?? []) if (e?.fieldsV1) e.fieldsV1 = rekey(e.fieldsV1);
      }),
  },
  {
    name: 'apply-create-answers-200',
    response: (r, res) => (isApply(r) && res.status === 201 ? { ...res, status: 200 } : res),
  },
  {
    name: 'apply-anonymous-as-caller',
    request: (r) => {
      const auth = header(r, 'authorization');
      if (auth) {
        lastCredentials = auth;
        return r;
      }
      return isApply(r) && lastCredentials
        ? { ...r, headers: { ...r.headers, authorization: lastCredentials } }
        : r;
    },
  },
  {
    name: 'apply-kind-filled-in',
    request: (r) =>
      repairIntent(r, (b) => {
        if (b.kind !== undefined) return undefined;
        const plural = /\/([^/]+)\/[^/]+$/.exec(r.url.pathname)?.[1] ?? '';
        return {
          ...b,
          kind: KINDS[plural] ?? plural.replace(/s$/, '').replace(/^./, (c) => c.toUpperCase()),
        };
      }),
  },
  {
    name: 'apply-invalid-data-key-repaired',
    request: (r) =>
      repairIntent(r, (b) => {
        const data = b.data;
        if (!data || typeof data !== 'object' || !Object.keys(data).some((k) => /[^-._a-zA-Z0-9]/.test(k)))
          return undefined;
        const fixed = Object.fromEntries(
          Object.entries(data).map(([k, v]) => [k.replace(/[^-._a-zA-Z0-9]/g, '-'), v]),
        );
        return { ...b, data: fixed };
      }),
  },
  {
    name: 'apply-negative-replicas-clamped',
    request: (r) =>
      repairIntent(r, (b) =>
        typeof b.spec?.replicas === 'number' && b.spec.replicas < 0
          ? { ...b, spec: { ...b.spec, replicas: 0 } }
          : undefined,
      ),
  },
  {
    name: 'apply-map-list-key-filled-in',
    request: (r) =>
      repairIntent(r, (b) => {
        const list = b.spec?.mapList;
        if (!Array.isArray(list) || list.every((i) => i && typeof i === 'object' && 'name' in i))
          return undefined;
        const mapList = list.map((i, n) =>
          i && typeof i === 'object' && !('name' in i) ? { name: `item-${n}`, ...i } : i,
        );
        return { ...b, spec: { ...b.spec, mapList } };
      }),
  },
  {
    name: 'apply-set-duplicates-dropped',
    request: (r) =>
      repairIntent(r, (b) => {
        const list = b.spec?.setList;
        if (!Array.isArray(list) || new Set(list.map((x) => JSON.stringify(x))).size === list.length)
          return undefined;
        const seen = new Set<string>();
        const setList = list.filter((x) => {
          const k = JSON.stringify(x);
          if (seen.has(k)) return false;
          seen.add(k);
          return true;
        });
        return { ...b, spec: { ...b.spec, setList } };
      }),
  },
  // the Widget's markers: the server merges one field of the suite's custom resource by another
  // marker than its definition gives (the proxy rewrites that field's schema in the definition)
  markerFault('apply-granular-map-as-atomic', 'granular', (f) => ({ ...f, 'x-orch-map-type': 'atomic' })),
  markerFault('apply-atomic-map-as-granular', 'atomicMap', (f) => ({ ...f, 'x-orch-map-type': 'granular' })),
  markerFault('apply-struct-as-atomic', 'struct', (f) => ({ ...f, 'x-orch-map-type': 'atomic' })),
  markerFault('apply-atomic-struct-as-granular', 'atomicStruct', (f) => ({
    ...f,
    'x-orch-map-type': 'granular',
  })),
  markerFault('apply-atomic-list-as-set', 'atomicList', (f) => ({ ...f, 'x-orch-list-type': 'set' })),
  markerFault('apply-set-list-as-atomic', 'setList', (f) => ({ ...f, 'x-orch-list-type': 'atomic' })),
  markerFault('apply-map-list-as-atomic', 'mapList', (f) => {
    const { 'x-orch-list-map-keys': _keys, ...rest } = f;
    return { ...rest, 'x-orch-list-type': 'atomic' };
  }),
  markerFault('apply-map-list-first-key-only', 'multiKeyList', (f) => ({
    ...f,
    'x-orch-list-map-keys': (f['x-orch-list-map-keys'] as string[]).slice(0, 1),
  })),
  markerFault('apply-unmarked-object-list-by-name', 'plainList', (f) => ({
    ...f,
    'x-orch-list-type': 'map',
    'x-orch-list-map-keys': ['name'],
    items: { ...(f.items as object), required: ['name'] },
  })),
  markerFault('apply-unmarked-string-list-as-set', 'plainStrings', (f) => ({
    ...f,
    'x-orch-list-type': 'set',
  })),
  markerFault('apply-unknown-fields-atomic', 'free', (f) => ({ ...f, 'x-orch-map-type': 'atomic' })),
  {
    name: 'apply-topology-atomic-owned-by-nobody',
    request: (r) => {
      learnTopology(r);
      return r;
    },
    response: (r, res, up) =>
      isApply(r) &&
      res.status === 409 &&
      topologyOf(r) === 'atomic' &&
      r.url.searchParams.get('force') !== 'true'
        ? up.send(withQuery(r, (q) => q.set('force', 'true')))
        : res,
  },
  {
    name: 'apply-topology-set-keeps-atomic-owner',
    request: (r) => {
      learnTopology(r);
      if (!isApply(r) || topologyOf(r) !== 'set' || r.url.searchParams.get('force') === 'true') return r;
      return readInstead(r, heldApplies);
    },
    response: (r, res, up) => {
      const apply = heldApplies.get(r);
      if (!apply) return res;
      const manager = apply.url.searchParams.get('fieldManager');
      const o = res.status === 200 ? parseBody({ ...r, body: res.body }) : undefined;
      const owner = (o?.metadata?.managedFields ?? []).find((e: any) => {
        const topo = e?.fieldsV1?.['f:spec']?.['f:topo'];
        return e?.manager !== manager && topo && typeof topo === 'object' && !Object.keys(topo).length;
      })?.manager;
      if (!owner) return up.send(apply);
      const message = `Apply failed with 1 conflict: conflict with "${owner}": .spec.topo`;
      return {
        status: 409,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message,
            reason: 'Conflict',
            details: {
              causes: [
                { reason: 'FieldManagerConflict', message: `conflict with "${owner}"`, field: '.spec.topo' },
              ],
            },
            code: 409,
          }),
        ),
      };
    },
  },
  {
    name: 'apply-patch-takes-no-ownership',
    request: (r) => {
      const b = r.method === 'PATCH' && !isApply(r) ? parseBody(r) : undefined;
      const touchesManaged = JSON.stringify(b ?? {}).includes('managedFields');
      return holdWrite(r, r.method === 'PATCH' && !isApply(r) && !touchesManaged);
    },
    response: (r, res, up) => afterHeldWrite(r, res, up, (before) => before?.metadata?.managedFields),
  },
  {
    name: 'apply-force-shares-ownership',
    request: (r) => holdWrite(r, isApply(r) && r.url.searchParams.get('force') === 'true'),
    response: (r, res, up) =>
      afterHeldWrite(r, res, up, (before, after, write) => {
        const manager = write.url.searchParams.get('fieldManager');
        const was: any[] = before?.metadata?.managedFields ?? [];
        const now: any[] = [...(after?.metadata?.managedFields ?? [])];
        let changed = false;
        for (const e of was) {
          if (e?.manager === manager) continue;
          const i = now.findIndex((x) => entryKey(x) === entryKey(e));
          const kept = i >= 0 ? members(now[i].fieldsV1).map((p) => JSON.stringify(p)) : [];
          if (members(e.fieldsV1).every((p) => kept.includes(JSON.stringify(p)))) continue;
          changed = true;
          if (i >= 0) now[i] = { ...now[i], fieldsV1: e.fieldsV1 };
          else now.push(e);
        }
        return changed ? now : undefined;
      }),
  },
  {
    name: 'apply-omitted-field-kept',
    request: (r) => holdWrite(r, isApply(r)),
    response: (r, res, up) =>
      afterHeldWrite(
        r,
        res,
        up,
        (before, after, write) =>
          omittedFields(before, after, write) ? after?.metadata?.managedFields : undefined,
        (before, after, write) => {
          const gone = omittedFields(before, after, write);
          return gone
            ? { [gone.section]: Object.fromEntries(gone.keys.map((k) => [k, before[gone.section][k]])) }
            : undefined;
        },
      ),
  },
  {
    name: 'apply-dry-run-skips-conflicts',
    request: (r) =>
      isApply(r) && r.url.searchParams.get('dryRun') === 'All'
        ? withQuery(r, (q) => q.set('force', 'true'))
        : r,
  },
  {
    name: 'apply-user-agent-over-field-manager',
    request: (r) =>
      (r.method === 'POST' || r.method === 'PUT' || (r.method === 'PATCH' && !isApply(r))) &&
      r.headers['user-agent'] &&
      r.url.searchParams.has('fieldManager')
        ? withQuery(r, (q) => q.delete('fieldManager'))
        : r,
  },
  {
    name: 'apply-empty-manager-kept',
    request: (r) => holdWrite(r, r.method === 'PUT' || r.method === 'PATCH'),
    response: (r, res, up) =>
      afterHeldWrite(r, res, up, (before, after) => {
        const now: any[] = after?.metadata?.managedFields ?? [];
        const gone = (before?.metadata?.managedFields ?? []).filter(
          (e: any) => !now.some((x) => x?.manager === e?.manager),
        );
        return gone.length && now.length
          ? [...now, ...gone.map((e: any) => ({ ...e, fieldsV1: {} }))]
          : undefined;
      }),
  },
  {
    name: 'apply-after-reset-conflicts',
    request: (r) => {
      if (!isApply(r) || !OBJECT_PATH.test(r.url.pathname) || r.url.searchParams.get('force') === 'true')
        return r;
      return readInstead(r, heldAfterReset);
    },
    response: (r, res, up) => {
      const apply = heldAfterReset.get(r);
      if (!apply) return res;
      const o = res.status === 200 ? jsonOf(res.body) : undefined;
      const keys = Object.keys(o?.data ?? {});
      const sent = parseBody(apply);
      const changed = keys.filter((k) => sent?.data && k in sent.data && sent.data[k] !== o.data[k]);
      if (!o || o.metadata?.managedFields?.length || !changed.length) return up.send(apply);
      return conflict(
        'before-first-apply',
        changed.map((k) => `.data.${k}`),
      );
    },
  },
  {
    name: 'apply-put-takes-unchanged-fields',
    // a PUT that resets managedFields (an empty list, an empty entry) is another rule's
    request: (r) => {
      const mf = r.method === 'PUT' ? parseBody(r)?.metadata?.managedFields : undefined;
      const reset = Array.isArray(mf) && (mf.length === 0 || mf.some((e) => !e?.manager));
      return holdWrite(r, r.method === 'PUT' && !reset);
    },
    response: (r, res, up) =>
      afterHeldWrite(r, res, up, (before, after, write) => {
        if (before?.kind !== 'ConfigMap') return undefined;
        const manager = write.url.searchParams.get('fieldManager') ?? '';
        const sent = Object.keys(parseBody(write)?.data ?? {});
        const unchanged = sent.filter(
          (k) => before.data?.[k] !== undefined && before.data[k] === after.data?.[k],
        );
        const now: any[] = after?.metadata?.managedFields ?? [];
        if (
          !manager ||
          !unchanged.some((k) => now.some((e) => e.manager !== manager && dataKeys(e).includes(k)))
        )
          return undefined;
        const mine = now.find((e) => e.manager === manager && e.operation === 'Update');
        const out = now
          .filter((e) => e !== mine)
          .map((e) => withDataKeys(e, [], unchanged))
          .filter((e) => Object.keys(e.fieldsV1 ?? {}).length);
        const base = mine ?? {
          manager,
          operation: 'Update',
          apiVersion: 'v1',
          time: now[0]?.time,
          fieldsType: 'FieldsV1',
          fieldsV1: {},
        };
        return [...out, withDataKeys(base, unchanged, [])];
      }),
  },
  {
    name: 'apply-same-value-takes-from-updater',
    request: (r) => holdWrite(r, isApply(r) && r.url.searchParams.get('force') !== 'true'),
    response: (r, res, up) =>
      afterHeldWrite(r, res, up, (_before, after, write) => {
        const manager = write.url.searchParams.get('fieldManager');
        const now: any[] = after?.metadata?.managedFields ?? [];
        const mine = dataKeys(now.find((e) => e.manager === manager && e.operation === 'Apply'));
        const taken = (e: any) =>
          e.manager !== manager && e.operation === 'Update' && dataKeys(e).some((k) => mine.includes(k));
        if (!now.some(taken)) return undefined;
        return now
          .map((e) => (taken(e) ? withDataKeys(e, [], mine) : e))
          .filter((e) => dataKeys(e).length || Object.keys(e.fieldsV1 ?? {}).some((k) => k !== 'f:data'));
      }),
  },
  {
    name: 'apply-shared-omitted-deleted',
    request: (r) => holdWrite(r, isApply(r)),
    response: (r, res, up) =>
      afterHeldWrite(
        r,
        res,
        up,
        (before, after, write) => {
          const gone = sharedOmitted(before, after, write);
          return gone
            ? (after?.metadata?.managedFields ?? [])
                .map((e: any) => withoutSectionKeys(e, gone.section, gone.keys))
                .filter((e: any) => Object.keys(e.fieldsV1 ?? {}).length)
            : undefined;
        },
        (before, after, write) => {
          const gone = sharedOmitted(before, after, write);
          return gone ? { [gone.section]: Object.fromEntries(gone.keys.map((k) => [k, null])) } : undefined;
        },
      ),
  },
  {
    name: 'apply-entry-api-version-of-core',
    response: (r, res) =>
      /^\/apis\/[^/]+\.example\.com\//.test(r.url.pathname)
        ? mapObjects(res, (o) => {
            for (const e of o?.metadata?.managedFields ?? []) if (e) e.apiVersion = 'v1';
          })
        : res,
  },
  {
    name: 'apply-shared-owner-changes-freely',
    request: (r) => {
      if (!isApply(r) || !OBJECT_PATH.test(r.url.pathname) || r.url.searchParams.get('force') === 'true')
        return r;
      return readInstead(r, heldShared);
    },
    response: async (r, res, up) => {
      const apply = heldShared.get(r);
      if (!apply) return res;
      const out = await up.send(apply);
      if (out.status !== 409 || res.status !== 200) return out;
      const manager = apply.url.searchParams.get('fieldManager');
      const mine = dataKeys(
        (jsonOf(res.body)?.metadata?.managedFields ?? []).find((e: any) => e?.manager === manager),
      );
      const fields: string[] = (jsonOf(out.body)?.details?.causes ?? []).map((c: any) =>
        String(c?.field ?? ''),
      );
      const shared =
        fields.length && fields.every((f) => f.startsWith('.data.') && mine.includes(f.slice(6)));
      return shared ? up.send(withQuery(apply, (q) => q.set('force', 'true'))) : out;
    },
  },
  {
    name: 'apply-empty-intent-recorded',
    request: (r) => holdWrite(r, isApply(r)),
    response: (r, res, up) =>
      afterHeldWrite(r, res, up, (_before, after, write) =>
        after?.metadata?.managedFields?.length
          ? undefined
          : [
              {
                manager: write.url.searchParams.get('fieldManager'),
                operation: 'Apply',
                apiVersion: after?.apiVersion,
                time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
                fieldsType: 'FieldsV1',
                fieldsV1: {},
              },
            ],
      ),
  },
  {
    name: 'apply-unowned-field-not-taken',
    request: (r) => holdWrite(r, isApply(r) && r.url.searchParams.get('force') !== 'true'),
    response: (r, res, up) =>
      afterHeldWrite(r, res, up, (before, after, write) => {
        if (before?.kind !== 'ConfigMap') return undefined;
        const manager = write.url.searchParams.get('fieldManager');
        const owned = new Set((before.metadata?.managedFields ?? []).flatMap(dataKeys));
        const now: any[] = after?.metadata?.managedFields ?? [];
        const mine = now.find((e) => e.manager === manager && e.operation === 'Apply');
        const fresh = dataKeys(mine).filter((k) => !owned.has(k));
        if (!mine || !fresh.length) return undefined;
        return now
          .map((e) => (e === mine ? withDataKeys(e, [], fresh) : e))
          .filter((e) => Object.keys(e.fieldsV1 ?? {}).length);
      }),
  },
  {
    name: 'apply-configmap-data-atomic',
    request: (r) => {
      if (!isApply(r) || !OBJECT_PATH.test(r.url.pathname) || r.url.searchParams.get('force') === 'true')
        return r;
      return readInstead(r, heldAtomicData);
    },
    response: (r, res, up) => {
      const apply = heldAtomicData.get(r);
      if (!apply) return res;
      const o = res.status === 200 ? jsonOf(res.body) : undefined;
      const sent = parseBody(apply)?.data;
      if (o?.kind !== 'ConfigMap' || !sent || typeof sent !== 'object') return up.send(apply);
      const manager = apply.url.searchParams.get('fieldManager');
      const other = (o.metadata?.managedFields ?? []).find(
        (e: any) =>
          e?.manager !== manager && e?.operation === 'Apply' && dataKeys(e).some((k) => !(k in sent)),
      );
      return other ? conflict(other.manager, ['.data']) : up.send(apply);
    },
  },
  {
    name: 'apply-removes-unapplied-fields',
    request: (r) => holdWrite(r, isApply(r) && r.url.searchParams.get('force') !== 'true'),
    response: (r, res, up) =>
      afterHeldWrite(
        r,
        res,
        up,
        (before, after, write) => {
          const gone = unapplied(before, after, write);
          return gone
            ? (after?.metadata?.managedFields ?? [])
                .map((e: any) => withDataKeys(e, [], gone))
                .filter((e: any) => Object.keys(e.fieldsV1 ?? {}).length)
            : undefined;
        },
        (before, after, write) => {
          const gone = unapplied(before, after, write);
          return gone ? { data: Object.fromEntries(gone.map((k) => [k, null])) } : undefined;
        },
      ),
  },
  {
    name: 'apply-dropped-field-kept-owned',
    request: (r) => holdWrite(r, isApply(r) && r.url.searchParams.get('force') !== 'true'),
    response: async (r, res, up) => {
      const write = heldOwnership.get(r);
      const key = write ? `${write.url.pathname}\u0000${write.url.searchParams.get('fieldManager')}` : '';
      const out = await afterHeldWrite(r, res, up, (_before, after, w) => {
        const refused = refusedKeys.get(key);
        const sent = Object.keys(parseBody(w)?.data ?? {});
        const dropped = (refused ?? []).filter((k) => !sent.includes(k) && k in (after?.data ?? {}));
        const manager = w.url.searchParams.get('fieldManager');
        const now: any[] = after?.metadata?.managedFields ?? [];
        const mine = now.find((e) => e.manager === manager && e.operation === 'Apply');
        if (!dropped.length || !mine) return undefined;
        return now.map((e) => (e === mine ? withDataKeys(e, dropped, []) : e));
      });
      if (write && out.status === 409) {
        const keys = (jsonOf(out.body)?.details?.causes ?? [])
          .map((c: any) => String(c?.field ?? ''))
          .filter((f: string) => f.startsWith('.data.'))
          .map((f: string) => f.slice(6));
        if (keys.length) refusedKeys.set(key, keys);
      }
      return out;
    },
  },
  {
    name: 'apply-shrink-removes-shared-items',
    request: (r) => holdWrite(r, isApply(r)),
    response: (r, res, up) =>
      afterHeldWrite(
        r,
        res,
        up,
        (before, after, write) => {
          const dropped = droppedShared(before, after, write);
          if (!dropped) return undefined;
          return (after?.metadata?.managedFields ?? [])
            .map((e: any) => {
              const spec = { ...(e?.fieldsV1?.['f:spec'] ?? {}) };
              for (const [list, keys] of dropped) {
                if (!spec[`f:${list}`]) continue;
                const l = { ...spec[`f:${list}`] };
                for (const k of keys) delete l[k];
                if (Object.keys(l).filter((k) => k !== '.').length) spec[`f:${list}`] = l;
                else delete spec[`f:${list}`];
              }
              const fieldsV1 = { ...e.fieldsV1, 'f:spec': spec };
              if (!Object.keys(spec).filter((k) => k !== '.').length) delete fieldsV1['f:spec'];
              return { ...e, fieldsV1 };
            })
            .filter((e: any) => Object.keys(e.fieldsV1 ?? {}).length);
        },
        (before, after, write) => {
          const dropped = droppedShared(before, after, write);
          if (!dropped) return undefined;
          const spec: Record<string, unknown> = {};
          for (const [list, keys] of dropped)
            spec[list] = (after.spec[list] ?? []).filter((i: any) => !keys.some((k) => itemIs(i, k)));
          return { spec };
        },
      ),
  },
  {
    name: 'apply-containers-atomic',
    request: holdDeploymentApply,
    response: (r, res, up) => {
      const apply = heldContainers.get(r);
      if (!apply) return res;
      const o = res.status === 200 ? jsonOf(res.body) : undefined;
      const sent = parseBody(apply)?.spec?.template?.spec?.containers;
      const manager = apply.url.searchParams.get('fieldManager');
      const names = (l: any[]) => JSON.stringify((l ?? []).map((c) => c?.name).sort());
      const owner = (o?.metadata?.managedFields ?? []).find(
        (e: any) => e?.manager !== manager && e?.operation === 'Apply' && containerItems(e).length,
      );
      if (!o || !Array.isArray(sent) || !owner || names(sent) === names(o.spec?.template?.spec?.containers))
        return up.send(apply);
      return conflict(owner.manager, ['.spec.template.spec.containers']);
    },
  },
  {
    name: 'apply-ports-keyed-by-port-only',
    request: holdDeploymentApply,
    response: (r, res, up) => {
      const apply = heldContainers.get(r);
      if (!apply) return res;
      const o = res.status === 200 ? jsonOf(res.body) : undefined;
      const manager = apply.url.searchParams.get('fieldManager');
      const sent: any[] = parseBody(apply)?.spec?.template?.spec?.containers ?? [];
      for (const e of o?.metadata?.managedFields ?? []) {
        if (e?.manager === manager) continue;
        const cs = e?.fieldsV1?.['f:spec']?.['f:template']?.['f:spec']?.['f:containers'] ?? {};
        for (const c of sent) {
          const item = cs[`k:${JSON.stringify({ name: c?.name })}`];
          for (const k of Object.keys(item?.['f:ports'] ?? {})) {
            const owned = k.startsWith('k:') ? jsonOf(Buffer.from(k.slice(2))) : undefined;
            if (
              (c?.ports ?? []).some(
                (p: any) =>
                  p?.containerPort === owned?.containerPort && (p?.protocol ?? 'TCP') !== owned?.protocol,
              )
            )
              return conflict(e.manager, [
                `.spec.template.spec.containers[name="${c.name}"].ports[containerPort=${owned.containerPort}].protocol`,
              ]);
          }
        }
      }
      return up.send(apply);
    },
  },
  {
    name: 'apply-pod-containers-owned-whole',
    response: (r, res) =>
      /\/pods(\/[^/]+)?$/.test(r.url.pathname)
        ? mapObjects(res, (o) => {
            for (const e of o?.metadata?.managedFields ?? [])
              if (e?.fieldsV1?.['f:spec']?.['f:containers']) e.fieldsV1['f:spec']['f:containers'] = {};
          })
        : res,
  },
  {
    name: 'apply-handover-manager-forced',
    request: (r) =>
      isApply(r) && /^handover-/.test(r.url.searchParams.get('fieldManager') ?? '')
        ? withQuery(r, (q) => q.set('force', 'true'))
        : r,
  },
  {
    name: 'apply-custom-create-drops-set-items',
    request: (r) => {
      if (!isApply(r) || !/^\/apis\/[^/]+\.example\.com\//.test(r.url.pathname)) return r;
      const b = parseBody(r);
      if (!Array.isArray(b?.spec?.setList)) return r;
      return readInstead(r, heldCustomCreates);
    },
    response: (r, res, up) => {
      const apply = heldCustomCreates.get(r);
      if (!apply) return res;
      if (res.status !== 404) return up.send(apply);
      const b = parseBody(apply);
      const { setList: _dropped, ...spec } = b.spec;
      return up.send(withBody(apply, { ...b, spec }));
    },
  },
];

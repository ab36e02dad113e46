// Faults against doc2's server-side apply (field ownership, conflicts, managedFields, the apply
// endpoint), one rule each; suites/apply must catch every one.
import { parse as parseYaml } from 'yaml';
import type { Fault, ProxiedRequest, ProxiedResponse, Upstream } from '../proxy.ts';
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
  breaks: string,
  field: string,
  change: (f: Record<string, unknown>) => Record<string, unknown>,
  catchers: string[],
): Fault {
  return {
    name,
    breaks: `doc2 § Merge strategy markers: ${breaks}`,
    area: 'apply',
    catchers,
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
  const read: ProxiedRequest = { ...r, method: 'GET', body: Buffer.alloc(0), url: new URL(r.url.pathname, r.url) };
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

export const FAULTS: Fault[] = [
  {
    name: 'apply-always-forced',
    breaks:
      "doc2 § States and transitions: an apply changing another manager's field without force is rejected as a conflict (the proxy adds force=true to every apply)",
    area: 'apply',
    catchers: [
      'apply/ownership/conflict/applied-by-other',
      'apply/ownership/conflict/force-false',
      'apply/ownership/conflict/every-field',
      'apply/ownership/conflict/owned-by-update',
    ],
    request: (r) => (isApply(r) ? withQuery(r, (q) => q.set('force', 'true')) : r),
  },
  {
    name: 'apply-conflict-retried-with-force',
    breaks:
      'doc2 § Errors: a conflict is a status error (the proxy answers a conflicting apply by re-sending it with force=true)',
    area: 'apply',
    catchers: [
      'apply/ownership/conflict/applied-by-other',
      'apply/ownership/conflict/force-false',
      'apply/ownership/conflict/every-field',
      'apply/ownership/conflict/owned-by-update',
    ],
    response: async (r, res, up) =>
      isApply(r) && res.status === 409 ? up.send(withQuery(r, (q) => q.set('force', 'true'))) : res,
  },
  {
    name: 'apply-managed-fields-stripped',
    breaks:
      'doc2 § What the service does: the server records, for each field, which manager owns it in metadata.managedFields (the proxy removes it from answers)',
    area: 'apply',
    catchers: [
      'apply/managed-fields/entry-shape',
      'apply/ownership/update/put',
      'apply/ownership/unowned-field/create',
    ],
    response: (_r, res) =>
      mapObjects(res, (o) => {
        if (o?.metadata) delete o.metadata.managedFields;
      }),
  },
  {
    name: 'apply-field-manager-renamed',
    breaks:
      'doc2 § Endpoints: the query fieldManager identifies the manager (the proxy sends every apply as one manager "proxy-manager")',
    area: 'apply',
    catchers: [
      'apply/managed-fields/entry-shape',
      'apply/ownership/shared/same-value',
      'apply/hand-off/manager-to-manager',
    ],
    request: (r) =>
      isApply(r) && r.url.searchParams.has('fieldManager')
        ? withQuery(r, (q) => q.set('fieldManager', 'proxy-manager'))
        : r,
  },
  {
    name: 'apply-as-merge-patch',
    breaks:
      'doc2 § Endpoints: Content-Type application/apply-patch+yaml is server-side apply (the proxy sends the body as a JSON merge patch)',
    area: 'apply',
    catchers: ['apply/endpoint/create-then-patch', 'apply/endpoint/json-body'],
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
    breaks:
      'doc2 § States and transitions: B applies the same value -> A and B share ownership (the proxy lists each field under its last entry only)',
    area: 'apply',
    catchers: [
      'apply/ownership/shared/same-value',
      'apply/ownership/shared/change-by-first',
      'apply/ownership/shared/change-by-second',
      // resolution (3): an applier that adopts the server's value becomes a shared owner
      'apply/resolution/adopt-server-value',
    ],
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
    breaks:
      'doc2 § managedFields entry: overwriting managedFields with a list containing a single empty entry clears it (the proxy sends an empty list instead)',
    area: 'apply',
    catchers: ['apply/managed-fields/clear/'],
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
    breaks:
      'doc2 § managedFields entry: an apply request must not contain managedFields (the proxy removes it, so the apply goes through)',
    area: 'apply',
    catchers: ['apply/managed-fields/apply-body-rejected'],
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
    breaks:
      'doc2 § Endpoints: fieldManager is required for an apply (the proxy fills in "proxy-default" when it is missing)',
    area: 'apply',
    catchers: ['apply/endpoint/field-manager-required', 'apply/endpoint/field-manager-required-existing'],
    request: (r) =>
      isApply(r) && !r.url.searchParams.get('fieldManager')
        ? withQuery(r, (q) => q.set('fieldManager', 'proxy-default'))
        : r,
  },
  {
    name: 'apply-operation-recorded-as-update',
    breaks:
      'doc2 § managedFields entry: operation is Apply if the last change was a server-side apply patch (the proxy answers Update)',
    area: 'apply',
    catchers: ['apply/managed-fields/entry-shape'],
    response: (_r, res) =>
      mapObjects(res, (o) => {
        for (const e of o?.metadata?.managedFields ?? [])
          if (e?.operation === 'Apply') e.operation = 'Update';
      }),
  },
  {
    name: 'apply-entry-time-missing',
    breaks:
      'doc2 § managedFields entry: time, when the entry was last written (the proxy drops it from every entry, those a change wrote included)',
    area: 'apply',
    catchers: ['apply/managed-fields/entry-time'],
    response: (_r, res) =>
      mapObjects(res, (o) => {
        for (const e of o?.metadata?.managedFields ?? []) if (e) delete e.time;
      }),
  },
  {
    name: 'apply-entry-time-dropped',
    breaks:
      'doc2 § managedFields entry: time, when the entry was last written (the proxy writes a text that is not a time)',
    area: 'apply',
    catchers: ['apply/managed-fields/entry-shape', 'apply/managed-fields/entry-time'],
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
    breaks:
      'doc1 § Dry run (for an apply): nothing is persisted (the proxy also sends a dry-run apply for real)',
    area: 'apply',
    catchers: ['apply/dry-run/create', 'apply/dry-run/force'],
    response: async (r, res, up) => {
      if (isApply(r) && r.url.searchParams.has('dryRun') && res.status < 300)
        await up.send(withQuery(r, (q) => q.delete('dryRun')));
      return res;
    },
  },
  {
    name: 'apply-user-agent-ignored',
    breaks:
      'doc2 § Endpoints: for non-apply writes the server infers the manager from the User-Agent header (the proxy drops the header)',
    area: 'apply',
    catchers: ['apply/endpoint/manager-from-user-agent', 'apply/endpoint/manager-from-user-agent-prefix'],
    request: (r) => {
      if (!isOtherWrite(r) || r.url.searchParams.get('fieldManager') || !r.headers['user-agent']) return r;
      const headers = { ...r.headers };
      delete headers['user-agent'];
      return { ...r, headers };
    },
  },
  {
    name: 'apply-conflict-causes-dropped',
    breaks:
      'doc2 § Errors (Kubernetes): a conflict names each conflicting field and its manager in the Status causes (the proxy drops them)',
    area: 'apply',
    catchers: [
      'apply/ownership/conflict/every-field/kubernetes-shape',
      'apply/ownership/conflict/applied-by-other/kubernetes-shape',
    ],
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
    breaks:
      'doc2 § managedFields entry (Kubernetes): list items are keyed k:{keys} and v:value in fieldsV1 (the proxy writes them as positions i:n)',
    area: 'apply',
    catchers: [
      'apply/markers/list-map-keys/kubernetes-shape',
      'apply/markers/containers-by-name/kubernetes-shape',
    ],
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
    breaks:
      'doc2 § Endpoints (Kubernetes): an apply that creates the object answers 201 Created (the proxy answers 200)',
    area: 'apply',
    catchers: [
      'apply/endpoint/create-custom-resource/kubernetes-shape',
      'apply/endpoint/json-body/kubernetes-shape',
    ],
    response: (r, res) => (isApply(r) && res.status === 201 ? { ...res, status: 200 } : res),
  },
  {
    name: 'apply-anonymous-as-caller',
    breaks:
      "doc2 § Authentication: apply is a PATCH, the caller needs the patch (and create) permission (an apply without credentials is sent on with the credentials of the proxy's last authenticated request)",
    area: 'apply',
    catchers: ['apply/auth/anonymous'],
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
    breaks:
      'doc2 § Endpoints: the body is the partial object with apiVersion and kind (an apply body without kind gets the kind of the resource path)',
    area: 'apply',
    catchers: ['apply/endpoint/kind-required'],
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
    breaks:
      'doc2 § Errors: an intent that does not produce a valid object makes the request fail (a data key with characters a key cannot have is stored with them replaced by "-")',
    area: 'apply',
    catchers: ['apply/errors/invalid-intent-create'],
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
    breaks:
      'doc2 § Errors: an intent that does not produce a valid object makes the request fail (negative replicas are applied as 0)',
    area: 'apply',
    catchers: ['apply/errors/invalid-intent-merged'],
    request: (r) =>
      repairIntent(r, (b) =>
        typeof b.spec?.replicas === 'number' && b.spec.replicas < 0
          ? { ...b, spec: { ...b.spec, replicas: 0 } }
          : undefined,
      ),
  },
  {
    name: 'apply-map-list-key-filled-in',
    breaks:
      'doc2 § Errors: an intent that does not produce a valid object makes the request fail (an item of a map list without its key field gets one, named after its position)',
    area: 'apply',
    catchers: ['apply/errors/invalid-intent-custom'],
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
    breaks:
      'doc2 § Errors: an intent that does not produce a valid object makes the request fail (a set list that repeats an item is applied with each item once)',
    area: 'apply',
    catchers: ['apply/errors/duplicate-set-items'],
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
  markerFault(
    'apply-granular-map-as-atomic',
    '`x-orch-map-type: granular`: managers update individual keys (the granular map is merged as atomic)',
    'granular',
    (f) => ({ ...f, 'x-orch-map-type': 'atomic' }),
    ['apply/markers/map-granular'],
  ),
  markerFault(
    'apply-atomic-map-as-granular',
    '`x-orch-map-type: atomic`: replaced whole by one manager (the atomic map is merged key by key)',
    'atomicMap',
    (f) => ({ ...f, 'x-orch-map-type': 'granular' }),
    ['apply/markers/map-atomic'],
  ),
  markerFault(
    'apply-struct-as-atomic',
    'a struct without marker is granular, managers own its fields one by one (the struct is owned whole)',
    'struct',
    (f) => ({ ...f, 'x-orch-map-type': 'atomic' }),
    ['apply/markers/struct-granular'],
  ),
  markerFault(
    'apply-atomic-struct-as-granular',
    '`x-orch-map-type: atomic` on a struct: owned whole by one manager (its fields are owned one by one)',
    'atomicStruct',
    (f) => ({ ...f, 'x-orch-map-type': 'granular' }),
    ['apply/markers/struct-atomic'],
  ),
  markerFault(
    'apply-atomic-list-as-set',
    '`x-orch-list-type: atomic`: the list is replaced whole by one manager (it is merged as a set)',
    'atomicList',
    (f) => ({ ...f, 'x-orch-list-type': 'set' }),
    ['apply/markers/list-atomic'],
  ),
  markerFault(
    'apply-set-list-as-atomic',
    '`x-orch-list-type: set`: scalar items, each owned on its own (the set is replaced whole)',
    'setList',
    (f) => ({ ...f, 'x-orch-list-type': 'atomic' }),
    ['apply/markers/list-set'],
  ),
  markerFault(
    'apply-map-list-as-atomic',
    '`x-orch-list-type: map`: items identified by their keys, each owned on its own (the map list is replaced whole)',
    'mapList',
    (f) => {
      const { 'x-orch-list-map-keys': _keys, ...rest } = f;
      return { ...rest, 'x-orch-list-type': 'atomic' };
    },
    ['apply/markers/list-map'],
  ),
  markerFault(
    'apply-map-list-first-key-only',
    '`x-orch-list-map-keys`: the key fields together identify an item (only the first key is used)',
    'multiKeyList',
    (f) => ({ ...f, 'x-orch-list-map-keys': (f['x-orch-list-map-keys'] as string[]).slice(0, 1) }),
    ['apply/markers/list-map-keys'],
  ),
  markerFault(
    'apply-unmarked-object-list-by-name',
    'custom resources are unstructured by default: a list without markers is atomic (an unmarked list of objects is merged by name)',
    'plainList',
    (f) => ({
      ...f,
      'x-orch-list-type': 'map',
      'x-orch-list-map-keys': ['name'],
      items: { ...(f.items as object), required: ['name'] },
    }),
    ['apply/markers/unmarked-object-list-atomic'],
  ),
  markerFault(
    'apply-unmarked-string-list-as-set',
    'custom resources are unstructured by default: a list without markers is atomic (an unmarked list of strings is merged as a set)',
    'plainStrings',
    (f) => ({ ...f, 'x-orch-list-type': 'set' }),
    ['apply/markers/unmarked-string-list-atomic'],
  ),
  markerFault(
    'apply-unknown-fields-atomic',
    'custom resources are unstructured by default: kept unknown fields act like struct fields (the preserved object is owned whole)',
    'free',
    (f) => ({ ...f, 'x-orch-map-type': 'atomic' }),
    ['apply/markers/unknown-fields-structs'],
  ),
  {
    name: 'apply-topology-atomic-owned-by-nobody',
    breaks:
      'doc2 § States and transitions: a set, map or granular field that becomes atomic is owned by the owners of any element, later changes conflict (after the change the whole list is owned by nobody: a change by another applier goes through)',
    area: 'apply',
    catchers: ['apply/topology/granular-to-atomic'],
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
    breaks:
      "doc2 § States and transitions: an atomic field that becomes a set, map or granular: ownership of inner items cannot be inferred, no conflict on later updates (the former owner of the whole list keeps it: another applier's items conflict with it)",
    area: 'apply',
    catchers: ['apply/topology/atomic-to-granular'],
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
    breaks:
      'doc2 § States and transitions: an update (a non-apply patch) that changes a field makes the updater its owner, the appliers lose it (the ownership stays as it was before the patch)',
    area: 'apply',
    catchers: [
      'apply/ownership/update/merge-patch',
      'apply/ownership/update/json-patch',
      'apply/ownership/update/strategic-merge-patch',
      'apply/ownership/update/removal',
      'apply/ownership/unowned-field/patch',
    ],
    request: (r) => {
      const b = r.method === 'PATCH' && !isApply(r) ? parseBody(r) : undefined;
      const touchesManaged = JSON.stringify(b ?? {}).includes('managedFields');
      return holdWrite(r, r.method === 'PATCH' && !isApply(r) && !touchesManaged);
    },
    response: (r, res, up) => afterHeldWrite(r, res, up, (before) => before?.metadata?.managedFields),
  },
  {
    name: 'apply-force-shares-ownership',
    breaks:
      'doc2 § States and transitions: a forced apply takes the conflicting fields over, their former owners lose them (they keep them: the field is shared)',
    area: 'apply',
    catchers: [
      'apply/ownership/force/takes-over',
      'apply/ownership/force/every-owner',
      'apply/resolution/overwrite',
      'apply/endpoint/controller-forces',
      // the law draws forced applies over other appliers' fields and checks the table's force row
      'apply/law/ownership-model',
    ],
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
    breaks:
      'doc2 § States and transitions: a field its sole owner leaves out of its apply is deleted, or reset to its default (it keeps its value, owned by nobody)',
    area: 'apply',
    catchers: [
      'apply/ownership/sole-owner-omits/deleted',
      'apply/ownership/sole-owner-omits/nested',
      'apply/ownership/sole-owner-omits/default',
    ],
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
    breaks:
      'doc1 § Dry run (for an apply): every stage runs but persisting, the conflict check included (a dry-run apply is checked as if forced)',
    area: 'apply',
    catchers: ['apply/dry-run/conflict'],
    request: (r) =>
      isApply(r) && r.url.searchParams.get('dryRun') === 'All'
        ? withQuery(r, (q) => q.set('force', 'true'))
        : r,
  },
  {
    name: 'apply-user-agent-over-field-manager',
    breaks:
      'doc2 § Endpoints: for non-apply writes the server infers the manager from the User-Agent only when fieldManager is absent (a write that names both is recorded under its User-Agent)',
    area: 'apply',
    catchers: ['apply/endpoint/field-manager-over-user-agent'],
    request: (r) =>
      (r.method === 'POST' || r.method === 'PUT' || (r.method === 'PATCH' && !isApply(r))) &&
      r.headers['user-agent'] &&
      r.url.searchParams.has('fieldManager')
        ? withQuery(r, (q) => q.delete('fieldManager'))
        : r,
  },
  {
    name: 'apply-empty-manager-kept',
    breaks:
      'doc2 § States and transitions: a temporary manager that owns no fields is removed automatically (its entry stays, owning nothing)',
    area: 'apply',
    catchers: [
      'apply/temporary-manager/forced-off',
      'apply/temporary-manager/empty-intent',
      'apply/temporary-manager/updater-overwritten',
    ],
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
    breaks:
      'doc2 § States and transitions: a field owned by nobody (managedFields cleared) is applied without conflict (the first apply after a reset conflicts with a manager owning every existing field, as Kubernetes does)',
    area: 'apply',
    catchers: ['apply/ownership/unowned-field/after-reset'],
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
    breaks:
      'doc2 § States and transitions: an update moves ownership of the fields it changes (a PUT takes every field it sends, the unchanged ones too)',
    area: 'apply',
    catchers: ['apply/ownership/update/unchanged-fields-stay'],
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
    breaks:
      'doc2 § States and transitions: an applier that applies the value an updater wrote shares the field with it (the updater loses it)',
    area: 'apply',
    catchers: ['apply/ownership/shared/same-value-as-updater'],
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
    breaks:
      'doc2 § States and transitions: a shared field one applier leaves out stays, owned by the others (it is deleted)',
    area: 'apply',
    catchers: [
      'apply/ownership/shared/omitted',
      'apply/ownership/shared/omitted-with-updater',
      // the hand-off recipe: the main intent drops a field a private manager shares, the value stays
      'apply/hand-off/user-to-controller',
    ],
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
    breaks:
      "doc2 § managedFields entry: apiVersion, the version of the object the entry's fields describe (a custom resource's entries say v1)",
    area: 'apply',
    catchers: ['apply/managed-fields/entry-api-version-custom'],
    response: (r, res) =>
      /^\/apis\/[^/]+\.example\.com\//.test(r.url.pathname)
        ? mapObjects(res, (o) => {
            for (const e of o?.metadata?.managedFields ?? []) if (e) e.apiVersion = 'v1';
          })
        : res,
  },
  {
    name: 'apply-shared-owner-changes-freely',
    breaks:
      'doc2 § States and transitions: shared by A and B, either applies a changed value: conflict (an owner of every conflicting field changes it without conflict)',
    area: 'apply',
    catchers: [
      'apply/ownership/shared/change-conflicts-with-all',
      'apply/ownership/shared/change-by-first',
      'apply/ownership/shared/change-by-second',
    ],
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
    breaks:
      'doc2 § States and transitions: a manager that owns no fields is removed automatically (an apply that owns nothing is recorded as an entry owning nothing)',
    area: 'apply',
    catchers: ['apply/regression/empty-intents'],
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
    breaks:
      'doc2 § States and transitions: a field owned by nobody, any write naming it: the writer becomes its manager (an apply to an existing ConfigMap does not take the data keys nobody owned)',
    area: 'apply',
    catchers: ['apply/ownership/unowned-field/apply'],
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
    breaks:
      'doc2 § Merge strategy markers: the data of a ConfigMap is a granular map, managers own their own keys (an apply of data keys while another applier owns other keys conflicts with it, as for an atomic map)',
    area: 'apply',
    catchers: ['apply/markers/map-granular-configmap'],
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
    breaks:
      'doc2 § Endpoints: a controller using apply cannot remove fields it never applied (an apply removes the data keys it leaves out that only updaters own)',
    area: 'apply',
    catchers: ['apply/endpoint/cannot-remove-unapplied'],
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
    breaks:
      'doc2 § States and transitions: conflict resolution (2), the applier drops the field from its intent and gives up its ownership (the fields of its refused apply stay in its entry when it applies without them)',
    area: 'apply',
    catchers: ['apply/resolution/drop-field'],
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
    breaks:
      "doc2 § States and transitions: applied set shrinks, an item is removed only when no one else owns it (an item its applier drops is removed from the list and from its other owners' entries)",
    area: 'apply',
    catchers: [
      'apply/ownership/shrink/set',
      'apply/ownership/shrink/map-list',
      'apply/ownership/shrink/map-list-item-field',
      'apply/ownership/shrink/owned-by-updater',
    ],
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
    breaks:
      "doc2 § Merge strategy markers: `map` list type, with set or map managers own entries separately (a Deployment's containers are owned whole: an apply that sends another set of container names than the stored one conflicts with an applier owning a container)",
    area: 'apply',
    catchers: ['apply/markers/containers-by-name'],
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
    breaks:
      "doc2 § Merge strategy markers: `x-orch-list-map-keys`, the key fields together identify an entry (a container's ports are identified by containerPort alone: another protocol on the same port is another applier's entry, a conflict)",
    area: 'apply',
    catchers: ['apply/markers/ports-by-port-and-protocol'],
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
    breaks:
      "doc2 § Merge strategy markers: map key fields identify entries (a Pod's containers are shown owned as a whole: entries own .spec.containers, not each container by its name)",
    area: 'apply',
    catchers: ['apply/markers/pod-containers'],
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
    breaks:
      "doc2 § States and transitions: the hand-off recipe, a private manager applies only the field; if the controller already wrote it, that apply conflicts (the proxy forces the private manager's applies: managers named handover-*, as the recipe's)",
    area: 'apply',
    catchers: ['apply/hand-off/user-to-controller-already-written'],
    request: (r) =>
      isApply(r) && /^handover-/.test(r.url.searchParams.get('fieldManager') ?? '')
        ? withQuery(r, (q) => q.set('force', 'true'))
        : r,
  },
  {
    name: 'apply-custom-create-drops-set-items',
    breaks:
      'doc2 § Endpoints: Result, the object is created if absent (an apply that creates a custom resource creates it without the items of its set list; an apply to an existing one is left alone)',
    area: 'apply',
    catchers: ['apply/endpoint/create-custom-resource'],
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

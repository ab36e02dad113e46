// Faults against doc2's server-side apply (field ownership, conflicts, managedFields, the apply
// endpoint), one rule each; suites/apply must catch every one.
import { parse as parseYaml } from 'yaml';
import type { Fault, ProxiedRequest, ProxiedResponse } from '../fault-proxy.ts';
import { mapJson } from './util.ts';

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

const contentType = (r: ProxiedRequest) =>
  (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
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

export const APPLY_FAULTS: Fault[] = [
  {
    name: 'apply-always-forced',
    breaks:
      "doc2 § States and transitions: an apply changing another manager's field without force is rejected as a conflict (the proxy adds force=true to every apply)",
    area: 'apply',
    request: (r) => (isApply(r) ? withQuery(r, (q) => q.set('force', 'true')) : r),
  },
  {
    name: 'apply-conflict-retried-with-force',
    breaks:
      'doc2 § Errors: a conflict is a status error (the proxy answers a conflicting apply by re-sending it with force=true)',
    area: 'apply',
    response: async (r, res, up) =>
      isApply(r) && res.status === 409 ? up.send(withQuery(r, (q) => q.set('force', 'true'))) : res,
  },
  {
    name: 'apply-managed-fields-stripped',
    breaks:
      'doc2 § What the service does: the server records, for each field, which manager owns it in metadata.managedFields (the proxy removes it from answers)',
    area: 'apply',
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
    response: (_r, res) =>
      mapObjects(res, (o) => {
        for (const e of o?.metadata?.managedFields ?? [])
          if (e?.operation === 'Apply') e.operation = 'Update';
      }),
  },
  {
    name: 'apply-entry-time-dropped',
    breaks: 'doc2 § managedFields entry: time, when the entry was last written (the proxy removes it)',
    area: 'apply',
    response: (_r, res) =>
      mapObjects(res, (o) => {
        for (const e of o?.metadata?.managedFields ?? []) if (e) delete e.time;
      }),
  },
  {
    name: 'apply-dry-run-persists',
    breaks:
      'doc1 § Dry run (for an apply): nothing is persisted (the proxy also sends a dry-run apply for real)',
    area: 'apply',
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
    response: (r, res) => (isApply(r) && res.status === 201 ? { ...res, status: 200 } : res),
  },
];

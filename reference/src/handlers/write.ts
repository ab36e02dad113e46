// create (POST), update (PUT), patch (PATCH), delete and deletecollection (DELETE).
import { JSON_TYPE, PROTOBUF_TYPE, YAML_TYPE, parseMediaType } from '../content/negotiate.ts';
import { errors, StatusError, successStatus } from '../errors/status.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { applyMergePatch } from '../patch/merge.ts';
import { applyStrategicMergePatch } from '../patch/strategic.ts';
import type { DeleteParams } from '../registry/store.ts';
import { apiVersionOf } from '../registry/types.ts';
import { decodeWithSchema } from '../schema/decode.ts';
import type { KObject } from '../storage/types.ts';
import { checkTypeMeta, fieldValidation, parseBody, validateFields } from './decode.ts';
import { listParams } from './read.ts';
import type { Handler, Scope } from './scope.ts';

const BODY_TYPES = [JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE];

async function readObject(s: Scope): Promise<KObject> {
  const level = fieldValidation(s.query);
  const buf = await s.body();
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  const { value, duplicates } = parseBody(buf, s.req.headers['content-type'], BODY_TYPES);
  const obj = validateFields(value, duplicates, s.def, s.version, level, s.ctx);
  checkTypeMeta(obj, s.def, apiVersionOf(s.def.group, s.version));
  return obj;
}

export const createHandler: Handler = async (s) => {
  const obj = await readObject(s);
  const created = await s.store.create(s.namespace, obj, s.ctx, s.version);
  s.reply(201, s.store.present(created, s.version));
};

export const updateHandler: Handler = async (s) => {
  const obj = await readObject(s);
  const r = await s.store.update(s.namespace, s.name, obj, s.ctx, s.version, s.subresource);
  s.reply(r.created ? 201 : 200, s.store.present(r.obj, s.version));
};

const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

export const patchHandler: Handler = async (s) => {
  const level = fieldValidation(s.query);
  const ct = parseMediaType(s.req.headers['content-type'] ?? '').type;
  const accepted = s.def.custom ? PATCH_TYPES.filter((t) => !t.startsWith('application/strategic')) : PATCH_TYPES;
  if (!accepted.includes(ct) || ct === 'application/apply-patch+yaml') throw errors.unsupportedMediaType(ct, accepted);
  const buf = await s.body();
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  const { value: patch, duplicates } = parseBody(buf, JSON_TYPE, BODY_TYPES);
  if (ct !== 'application/json-patch+json' && (typeof patch !== 'object' || patch === null || Array.isArray(patch)))
    throw errors.badRequest('the patch must be a JSON object');
  for (let attempt = 0; ; attempt++) {
    const cur = s.store.getStored(s.namespace, s.name);
    if (!cur) throw errors.notFound(s.def.group, s.def.plural, s.name);
    const current = s.store.present(cur.obj, s.version);
    let patched: unknown;
    if (ct === 'application/json-patch+json') patched = applyJsonPatch(current, patch);
    else if (ct === 'application/merge-patch+json') patched = applyMergePatch(current, patch);
    else patched = applyStrategicMergePatch(current, patch, s.def.schema);
    if (typeof patched !== 'object' || patched === null || Array.isArray(patched))
      throw errors.badRequest('the patch must produce an object');
    const ctx = { ...s.ctx, warnings: [] as string[] };
    const obj = validateFields(patched, duplicates, s.def, s.version, level, ctx);
    if (s.def.schema && level !== 'Ignore') {
      // unknown fields are reported from the patched object; duplicates from the patch text
      void decodeWithSchema;
    }
    const explicitRv = patchSetsRv(patch, ct);
    try {
      const r = await s.store.update(s.namespace, s.name, obj, s.ctx, s.version, s.subresource, {
        expectRv: explicitRv ? undefined : cur.rv,
      });
      s.ctx.warnings.push(...ctx.warnings);
      s.reply(200, s.store.present(r.obj, s.version));
      return;
    } catch (e) {
      // A patch without a resourceVersion of its own is re-applied to the newer object.
      if (e instanceof StatusError && e.code === 409 && e.reason === 'Conflict' && !explicitRv && attempt < 5) continue;
      throw e;
    }
  }
};

function patchSetsRv(patch: unknown, ct: string): boolean {
  if (ct === 'application/json-patch+json')
    return (patch as { path?: string }[]).some((op) => op && op.path === '/metadata/resourceVersion');
  const m = (patch as { metadata?: { resourceVersion?: unknown } }).metadata;
  return !!m && typeof m === 'object' && m.resourceVersion !== undefined && m.resourceVersion !== null;
}

async function deleteParams(s: Scope): Promise<DeleteParams> {
  const p: DeleteParams = {};
  const buf = await s.body();
  if (buf.length) {
    const { value } = parseBody(buf, s.req.headers['content-type'], BODY_TYPES);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw errors.badRequest('DeleteOptions must be an object');
    const o = value as Record<string, unknown>;
    if (o.kind !== undefined && o.kind !== 'DeleteOptions')
      throw errors.badRequest(`the kind in the data (${String(o.kind)}) does not match the expected kind (DeleteOptions)`);
    if (o.preconditions !== undefined) {
      if (typeof o.preconditions !== 'object' || o.preconditions === null) throw errors.badRequest('preconditions must be an object');
      p.preconditions = o.preconditions as DeleteParams['preconditions'];
    }
    if (o.gracePeriodSeconds !== undefined) {
      if (typeof o.gracePeriodSeconds !== 'number') throw errors.badRequest('gracePeriodSeconds must be an integer');
      p.gracePeriodSeconds = o.gracePeriodSeconds;
    }
    if (o.propagationPolicy !== undefined) p.propagationPolicy = String(o.propagationPolicy);
    if (Array.isArray(o.dryRun) && o.dryRun.includes('All')) s.ctx.dryRun = true;
  }
  const gp = s.query.get('gracePeriodSeconds');
  if (gp !== null && gp !== '') {
    if (!/^-?\d+$/.test(gp)) throw errors.badRequest(`invalid value for gracePeriodSeconds: "${gp}"`);
    p.gracePeriodSeconds = Number(gp);
  }
  const pp = s.query.get('propagationPolicy');
  if (pp) {
    if (!['Orphan', 'Background', 'Foreground'].includes(pp))
      throw errors.badRequest(`propagationPolicy: Unsupported value: "${pp}": supported values: "Foreground", "Background", "Orphan"`);
    p.propagationPolicy = pp;
  }
  return p;
}

export const deleteHandler: Handler = async (s) => {
  const p = await deleteParams(s);
  const r = await s.store.delete(s.namespace, s.name, p, s.ctx, s.version);
  if (r.deleted && !s.def.strategy.returnDeletedObject) {
    s.reply(200, successStatus({ name: s.name, group: s.def.group || undefined, kind: s.def.plural, uid: r.obj.metadata.uid }));
    return;
  }
  s.reply(200, s.store.present(r.obj, s.version));
};

export const deleteCollectionHandler: Handler = async (s) => {
  const p = await deleteParams(s);
  const lp = listParams(s.query);
  const items = await s.store.deleteCollection(s.namespace, lp, p, s.ctx, s.version);
  const apiVersion = apiVersionOf(s.def.group, s.version);
  s.reply(200, {
    kind: s.def.listKind,
    apiVersion,
    metadata: {},
    items: items.map((o) => s.store.present(o, s.version)),
  });
};

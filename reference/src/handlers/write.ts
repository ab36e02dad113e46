// create (POST), update (PUT), patch (PATCH), delete and deletecollection (DELETE).
import { tooDeep, valueNestingExceeds } from '../content/json.ts';
import { JSON_TYPE, mediaTypeOf, PROTOBUF_TYPE, YAML_TYPE } from '../content/negotiate.ts';
import { errors, StatusError, successStatus } from '../errors/status.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { applyMergePatch } from '../patch/merge.ts';
import { applyStrategicMergePatch } from '../patch/strategic.ts';
import type { DeleteParams } from '../registry/store.ts';
import { apiVersionOf } from '../registry/types.ts';
import { jsonType } from '../schema/decode.ts';
import type { KObject } from '../storage/types.ts';
import { APPLY_PATCH_TYPE, applyPatchHandler } from './apply.ts';
import { checkTypeMeta, fieldValidation, parseBody, validateFields } from './decode.ts';
import { listParams } from './read.ts';
import type { Handler, Scope } from './scope.ts';

const BODY_TYPES = [JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE];

async function readObject(s: Scope): Promise<KObject> {
  const level = fieldValidation(s.query);
  const buf = await s.body();
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  const { value, duplicates, unshared } = parseBody(buf, s.contentType, BODY_TYPES);
  // the body was just parsed: nothing else holds it
  const obj = validateFields(value, duplicates, s.def, s.version, level, s.ctx, unshared);
  checkTypeMeta(obj, s.def, apiVersionOf(s.def.group, s.version));
  return obj;
}

export const createHandler: Handler = async (s) => {
  const obj = await readObject(s);
  const review = s.def.strategy.review;
  if (review) {
    // a kind that is not stored: the answer is computed, never written (a dry run alike)
    s.reply(
      201,
      s.store.present(await review(obj, s.ctx, { namespace: s.namespace, version: s.version }), s.version),
    );
    return;
  }
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

const JSON_PATCH = 'application/json-patch+json';
/** Kubernetes' cap on the operations of one JSON Patch. */
const MAX_JSON_PATCH_OPS = 10000;
/** How many times a patch without a resourceVersion of its own is re-applied after a conflict. */
const PATCH_RETRIES = 20;

export const patchHandler: Handler = async (s) => {
  const level = fieldValidation(s.query);
  const ct = mediaTypeOf(s.contentType ?? '');
  const accepted = s.def.custom
    ? PATCH_TYPES.filter((t) => !t.startsWith('application/strategic'))
    : PATCH_TYPES;
  if (!accepted.includes(ct)) throw errors.unsupportedMediaType(ct, accepted);
  if (ct === APPLY_PATCH_TYPE) return applyPatchHandler(s);
  const buf = await s.body();
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  const { value: patch, duplicates } = parseBody(buf, JSON_TYPE, BODY_TYPES);
  if (ct === JSON_PATCH) {
    if (!Array.isArray(patch))
      throw errors.badRequest(
        `json: cannot unmarshal ${jsonType(patch)} into Go value of type jsonpatch.Patch`,
      );
    if (patch.length > MAX_JSON_PATCH_OPS)
      throw new StatusError(
        413,
        'RequestEntityTooLarge',
        `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPS}, got ${patch.length}`,
      );
  } else if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw errors.badRequest(
      `json: cannot unmarshal ${jsonType(patch)} into Go value of type map[string]interface {}`,
    );
  }
  for (let attempt = 0; ; attempt++) {
    const cur = s.store.getStored(s.namespace, s.name);
    if (!cur) throw errors.notFound(s.def.group, s.def.plural, s.name);
    const current = s.store.present(cur.obj, s.version);
    let patched: unknown;
    if (ct === JSON_PATCH) patched = applyJsonPatch(current, patch);
    else if (ct === 'application/merge-patch+json') patched = applyMergePatch(current, patch);
    else patched = applyStrategicMergePatch(current, patch, s.def.schema);
    if (typeof patched !== 'object' || patched === null || Array.isArray(patched))
      throw errors.badRequest(
        `${s.def.kind} in version "${s.version}" cannot be handled as a ${s.def.kind}: the patched document is a ${jsonType(patched)}, not an object`,
      );
    // Unknown fields are found in the patched object, duplicates in the patch text; their
    // warnings are kept only from the attempt that succeeds.
    const ctx = { ...s.ctx, warnings: [] as string[] };
    // a patch can build an object deeper than any body it came from
    if (valueNestingExceeds(patched)) throw tooDeep();
    const obj = validateFields(patched, duplicates, s.def, s.version, level, ctx);
    // A resourceVersion in the patched object other than the one the patch was applied to
    // came from the patch: it is a precondition (409 when stale), and the patch is not retried.
    const rv = obj.metadata.resourceVersion;
    const ownRv = rv !== undefined && rv !== null && rv !== '' && rv !== cur.obj.metadata.resourceVersion;
    try {
      const r = await s.store.update(s.namespace, s.name, obj, s.ctx, s.version, s.subresource, {
        expectRv: cur.rv,
      });
      s.ctx.warnings.push(...ctx.warnings);
      s.reply(200, s.store.present(r.obj, s.version));
      return;
    } catch (e) {
      // Someone wrote in between: the patch is re-applied to the newer object.
      const conflict = e instanceof StatusError && e.code === 409 && e.reason === 'Conflict';
      if (conflict && !ownRv && attempt < PATCH_RETRIES) continue;
      throw e;
    }
  }
};

async function deleteParams(s: Scope): Promise<DeleteParams> {
  const p: DeleteParams = {};
  const buf = await s.body();
  if (buf.length) {
    const { value } = parseBody(buf, s.contentType, BODY_TYPES);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw errors.badRequest('DeleteOptions must be an object');
    const o = value as Record<string, unknown>;
    if (o.kind !== undefined && o.kind !== 'DeleteOptions')
      throw errors.badRequest(
        `the kind in the data (${String(o.kind)}) does not match the expected kind (DeleteOptions)`,
      );
    if (o.preconditions !== undefined) {
      if (typeof o.preconditions !== 'object' || o.preconditions === null || Array.isArray(o.preconditions))
        throw errors.badRequest('preconditions must be an object');
      for (const [k, v] of Object.entries(o.preconditions))
        if ((k === 'uid' || k === 'resourceVersion') && v !== null && typeof v !== 'string')
          throw errors.badRequest(
            `json: cannot unmarshal ${jsonType(v)} into Go struct field Preconditions.preconditions.${k} of type string`,
          );
      p.preconditions = o.preconditions as DeleteParams['preconditions'];
    }
    if (o.gracePeriodSeconds !== undefined) {
      if (typeof o.gracePeriodSeconds !== 'number' || !Number.isSafeInteger(o.gracePeriodSeconds))
        throw errors.badRequest('gracePeriodSeconds must be an integer');
      p.gracePeriodSeconds = o.gracePeriodSeconds;
    }
    if (o.propagationPolicy !== undefined && o.propagationPolicy !== null) {
      if (typeof o.propagationPolicy !== 'string')
        throw errors.badRequest(
          `json: cannot unmarshal ${jsonType(o.propagationPolicy)} into Go struct field DeleteOptions.propagationPolicy of type string`,
        );
      if (!['Orphan', 'Background', 'Foreground'].includes(o.propagationPolicy))
        throw errors.invalidOptions('DeleteOptions', [
          {
            reason: 'FieldValueNotSupported',
            field: 'propagationPolicy',
            message: `Unsupported value: ${JSON.stringify(o.propagationPolicy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
          },
        ]);
      p.propagationPolicy = o.propagationPolicy;
    }
    if (o.dryRun !== undefined && o.dryRun !== null) {
      // DeleteOptions.dryRun: a list of strings whose only accepted value is "All", as in the query
      if (!Array.isArray(o.dryRun) || o.dryRun.some((v) => typeof v !== 'string'))
        throw errors.badRequest('DeleteOptions.dryRun must be a list of strings');
      if (o.dryRun.some((v) => v !== 'All' && v !== ''))
        throw errors.invalidOptions('DeleteOptions', [
          {
            reason: 'FieldValueNotSupported',
            field: 'dryRun',
            message: `Unsupported value: []string{${o.dryRun.map((v) => JSON.stringify(v)).join(', ')}}: supported values: "All"`,
          },
        ]);
      if (o.dryRun.length) s.ctx.dryRun = true;
    }
  }
  const gp = s.query.get('gracePeriodSeconds');
  if (gp !== null && gp !== '') {
    if (!/^-?\d+$/.test(gp)) throw errors.badRequest(`invalid value for gracePeriodSeconds: "${gp}"`);
    p.gracePeriodSeconds = Number(gp);
  }
  const pp = s.query.get('propagationPolicy');
  if (pp) {
    if (!['Orphan', 'Background', 'Foreground'].includes(pp))
      throw errors.badRequest(
        `propagationPolicy: Unsupported value: "${pp}": supported values: "Foreground", "Background", "Orphan"`,
      );
    p.propagationPolicy = pp;
  }
  return p;
}

export const deleteHandler: Handler = async (s) => {
  const p = await deleteParams(s);
  const r = await s.store.delete(s.namespace, s.name, p, s.ctx, s.version);
  if (r.deleted && !s.def.strategy.returnDeletedObject) {
    s.reply(
      200,
      successStatus({
        name: s.name,
        group: s.def.group || undefined,
        kind: s.def.plural,
        uid: r.obj.metadata.uid,
      }),
    );
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

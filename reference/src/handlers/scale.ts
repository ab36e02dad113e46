// The `scale` subresource (get, update, patch) of any kind whose strategy offers one: the
// kind says how replicas are read and written, this handler does the rest (body checks,
// field validation, patches, preconditions and retries).
import { JSON_TYPE, mediaTypeOf, YAML_TYPE } from '../content/negotiate.ts';
import { errors, StatusError } from '../errors/status.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { applyMergePatch } from '../patch/merge.ts';
import type { RequestContext, ResourceDef, ScaleAccess } from '../registry/types.ts';
import { int, obj, str } from '../schema/dsl.ts';
import { objectMeta } from '../schema/meta.ts';
import { goValue } from '../schema/validate.ts';
import type { KObject } from '../storage/types.ts';
import { clone } from '../util/object.ts';
import { fieldValidation, parseBody, validateFields } from './decode.ts';
import type { Handler, Scope } from './scope.ts';

const SCALE_API_VERSION = 'autoscaling/v1';
/** How many times a scale write without a resourceVersion of its own is redone after a conflict. */
const RETRIES = 5;

const scaleDef = {
  kind: 'Scale',
  schema: obj({
    apiVersion: str(),
    kind: str(),
    metadata: objectMeta,
    spec: obj({ replicas: int({ format: 'int32' }) }),
    status: obj({ replicas: int({ format: 'int32' }), selector: str() }),
  }),
} as ResourceDef;

function access(s: Scope): ScaleAccess {
  const a = s.def.strategy.scale;
  if (!a) throw errors.pathNotFound(s.path);
  return a;
}

function scaleOf(s: Scope, a: ScaleAccess, o: KObject): KObject {
  const sc = a.toScale(o, s.version);
  if (!sc) throw errors.pathNotFound(s.path);
  return sc;
}

function checkScaleBody(
  value: unknown,
  s: Scope,
  level: ReturnType<typeof fieldValidation>,
  duplicates: string[],
  ctx: RequestContext,
): KObject {
  const scale = validateFields(value, duplicates, scaleDef, 'v1', level, ctx);
  if (scale.kind !== undefined && scale.kind !== '' && scale.kind !== 'Scale')
    throw errors.badRequest(
      `the kind in the data (${String(scale.kind)}) does not match the expected kind (Scale)`,
    );
  if (scale.apiVersion !== undefined && scale.apiVersion !== '' && scale.apiVersion !== SCALE_API_VERSION)
    throw errors.badRequest(
      `the API version in the data (${String(scale.apiVersion)}) does not match the expected API version (${SCALE_API_VERSION})`,
    );
  const name = scale.metadata?.name;
  if (name !== undefined && name !== s.name)
    throw errors.badRequest(
      `the name of the object (${String(name)}) does not match the name on the URL (${s.name})`,
    );
  const ns = scale.metadata?.namespace;
  if (ns && ns !== s.namespace)
    throw errors.badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  const replicas = (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0;
  if (replicas < 0)
    throw errors.invalid({ group: 'autoscaling', kind: 'Scale' }, s.name, [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.replicas',
        message: `Invalid value: ${goValue(replicas)}: must be greater than or equal to 0`,
      },
    ]);
  return scale;
}

/** Writes a Scale's replicas into the object and answers with the new Scale. */
async function writeScale(s: Scope, a: ScaleAccess, scale: KObject, explicitRv: boolean): Promise<void> {
  const replicas = (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0;
  for (let attempt = 0; ; attempt++) {
    const cur = s.store.getStored(s.namespace, s.name);
    if (!cur) throw errors.notFound(s.def.group, s.def.plural, s.name);
    const next = clone(s.store.present(cur.obj, s.version));
    if (explicitRv) next.metadata.resourceVersion = scale.metadata.resourceVersion;
    a.setReplicas(next, replicas, s.version);
    try {
      // the write's managedFields entry names the subresource, as Kubernetes records it
      const r = await s.store.update(s.namespace, s.name, next, s.ctx, s.version, 'scale');
      s.reply(200, scaleOf(s, a, s.store.present(r.obj, s.version)));
      return;
    } catch (e) {
      if (
        e instanceof StatusError &&
        e.code === 409 &&
        e.reason === 'Conflict' &&
        !explicitRv &&
        attempt < RETRIES
      )
        continue;
      throw e;
    }
  }
}

function patchSetsRv(patch: unknown, ct: string): boolean {
  if (ct === 'application/json-patch+json')
    return (
      Array.isArray(patch) &&
      patch.some((op) => op && (op as { path?: string }).path === '/metadata/resourceVersion')
    );
  const m = (patch as { metadata?: { resourceVersion?: unknown } }).metadata;
  return !!m && typeof m === 'object' && m.resourceVersion !== undefined && m.resourceVersion !== null;
}

export const scaleGetHandler: Handler = async (s) => {
  const a = access(s);
  const o = await s.store.get(s.namespace, s.name);
  s.reply(200, scaleOf(s, a, s.store.present(o, s.version)));
};

export const scaleUpdateHandler: Handler = async (s) => {
  const a = access(s);
  const level = fieldValidation(s.query);
  const buf = await s.body();
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  const { value, duplicates } = parseBody(buf, s.contentType, [JSON_TYPE, YAML_TYPE]);
  const scale = checkScaleBody(value, s, level, duplicates, s.ctx);
  const cur = await s.store.get(s.namespace, s.name);
  scaleOf(s, a, cur);
  await writeScale(s, a, scale, !!scale.metadata.resourceVersion);
};

export const scalePatchHandler: Handler = async (s) => {
  const a = access(s);
  const level = fieldValidation(s.query);
  const ct = mediaTypeOf(s.contentType ?? '');
  if (!a.patchTypes.includes(ct)) throw errors.unsupportedMediaType(ct, [...a.patchTypes]);
  const buf = await s.body();
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  const { value: patch, duplicates } = parseBody(buf, JSON_TYPE, [JSON_TYPE]);
  const jsonPatch = ct === 'application/json-patch+json';
  if (!jsonPatch && (typeof patch !== 'object' || patch === null || Array.isArray(patch)))
    throw errors.badRequest('the patch must be a JSON object');
  const cur = s.store.present(await s.store.get(s.namespace, s.name), s.version);
  const current = scaleOf(s, a, cur);
  // a Scale has no lists: a strategic merge patch is a merge patch here
  const patched = jsonPatch ? applyJsonPatch(current, patch) : applyMergePatch(current, patch);
  const scale = checkScaleBody(patched, s, level, duplicates, s.ctx);
  const rvChanged =
    scale.metadata.resourceVersion !== undefined &&
    scale.metadata.resourceVersion !== cur.metadata.resourceVersion;
  await writeScale(s, a, scale, rvChanged || patchSetsRv(patch, ct));
};

// Server-side apply: PATCH with `Content-Type: application/apply-patch+yaml` (YAML or JSON).
// `fieldManager` is required (checked with the other query options, 422 as Kubernetes
// answers), `force` optional. The body is the intent: apiVersion and kind of the endpoint,
// no managedFields. The object is created when absent (201), patched otherwise (200); a
// conflict is a 409 with one cause per field and manager.
import { conflictError } from '../apply/conflicts.ts';
import { isMap, TypedError, undeclaredFields, undeclaredMessage } from '../apply/typed.ts';
import { ApplyConflicts } from '../apply/updater.ts';
import { errors, StatusError } from '../errors/status.ts';
import { applyToObject } from '../registry/field-manager.ts';
import { apiVersionOf, schemaFor } from '../registry/types.ts';
import { jsonType } from '../schema/decode.ts';
import { normalizeBySchema } from '../schema/normalize.ts';
import type { KObject } from '../storage/types.ts';
import { type FieldValidation, fieldValidation, parseBody, validateFields } from './decode.ts';
import type { Scope } from './scope.ts';

export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

/** How many times an apply is redone after a concurrent write (it needs no resourceVersion). */
const APPLY_RETRIES = 20;

/** Go's strconv.ParseBool, as the query parameter is decoded. */
function parseForce(v: string | null): boolean {
  if (v === null || v === '') return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw errors.badRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

/** A GroupVersionKind as Go prints it: `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`. */
function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const k = typeof kind === 'string' ? kind : '';
  const i = av.indexOf('/');
  const gv = i >= 0 ? av : `/${av}`;
  return `${gv}, Kind=${k}`;
}

/**
 * The intent of an apply body: an object of the endpoint's apiVersion and kind, without
 * managedFields, its fields checked as any body's (Ignore / Warn / Strict); through the status
 * subresource only its status (and identity) is kept.
 */
function readIntent(
  s: Scope,
  buf: Buffer,
  apiVersion: string,
  level: FieldValidation,
): Record<string, unknown> {
  const { value, duplicates, duplicateLines } = parseBody(buf, APPLY_PATCH_TYPE, [APPLY_PATCH_TYPE]);
  if (!isMap(value))
    throw errors.badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonType(value)} into Go value of type map[string]interface {}`,
    );
  if (value.apiVersion !== apiVersion || value.kind !== s.def.kind)
    throw errors.badRequest(`invalid object type: ${gvkString(value.apiVersion, value.kind)}`);
  if (
    isMap(value.metadata) &&
    value.metadata.managedFields !== undefined &&
    value.metadata.managedFields !== null
  )
    throw errors.badRequest('metadata.managedFields must be nil');

  const schema = schemaFor(s.def, s.version);
  if (level === 'Strict') {
    // Strict apply words its refusals as the typed intent and a strict YAML decoder do:
    // undeclared fields first, then keys repeated in the text
    const undeclared = schema ? undeclaredFields(value, schema) : [];
    if (undeclared.length)
      throw errors.badRequest(
        `failed to create typed patch object (${s.namespace}/${s.name}; ${gvkString(apiVersion, s.def.kind)}): ${undeclaredMessage(undeclared)}`,
      );
    if (duplicateLines?.length)
      throw errors.badRequest(
        `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicateLines.join('\n  ')}`,
      );
  }
  // type checks, unknown and duplicate fields (Ignore / Warn / Strict) as for any body
  const config = validateFields(value, duplicates, s.def, s.version, level, s.ctx) as Record<string, unknown>;
  if (!s.def.custom && schema) normalizeBySchema(config, schema, s.def.kind);
  if (s.subresource !== 'status') return config;
  // through the status subresource an intent reaches status only
  const meta = (config.metadata ?? {}) as Record<string, unknown>;
  const narrowed: Record<string, unknown> = { apiVersion, kind: s.def.kind, metadata: {} };
  for (const k of ['name', 'namespace', 'resourceVersion'])
    if (meta[k] !== undefined) (narrowed.metadata as Record<string, unknown>)[k] = meta[k];
  if (config.status !== undefined) narrowed.status = config.status;
  return narrowed;
}

/** The object the intent makes of the live one (409 on conflicts unless forced, 400 on a value apply cannot type). */
function applyIntent(
  s: Scope,
  live: KObject | undefined,
  config: Record<string, unknown>,
  manager: string,
  force: boolean,
  apiVersion: string,
): KObject {
  try {
    return applyToObject({
      def: s.def,
      version: s.version,
      subresource: s.subresource,
      live,
      config,
      manager,
      force,
      now: Date.now(),
    });
  } catch (e) {
    if (e instanceof ApplyConflicts) throw conflictError(e.conflicts);
    if (e instanceof TypedError)
      throw errors.badRequest(
        `failed to create typed patch object (${s.namespace}/${s.name}; ${gvkString(apiVersion, s.def.kind)}): ${e.message}`,
      );
    throw e;
  }
}

export async function applyPatchHandler(s: Scope): Promise<void> {
  const level = fieldValidation(s.query);
  const manager = s.query.get('fieldManager') ?? '';
  if (!manager)
    throw errors.invalidOptions('PatchOptions', [
      {
        reason: 'FieldValueRequired',
        field: 'fieldManager',
        message: 'Required value: is required for apply patch',
      },
    ]);
  const force = parseForce(s.query.get('force'));
  const buf = await s.body();
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  const apiVersion = apiVersionOf(s.def.group, s.version);
  const config = readIntent(s, buf, apiVersion, level);
  const ownRv = (config.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;

  for (let attempt = 0; ; attempt++) {
    const cur = s.store.getStored(s.namespace, s.name);
    if (!cur && s.subresource) throw errors.notFound(s.def.group, s.def.plural, s.name);
    const live = cur ? s.store.present(cur.obj, s.version) : undefined;
    const obj = applyIntent(s, live, config, manager, force, apiVersion);
    try {
      const r = await s.store.update(s.namespace, s.name, obj, s.ctx, s.version, s.subresource, {
        forceAllowCreate: true,
        expectRv: cur?.rv,
        applied: { managedFields: obj.metadata.managedFields },
      });
      s.reply(r.created ? 201 : 200, s.store.present(r.obj, s.version));
      return;
    } catch (e) {
      // someone wrote (or created the object) in between: the apply is redone on the newer object
      const raced =
        e instanceof StatusError &&
        e.code === 409 &&
        (e.reason === 'Conflict' || (e.reason === 'AlreadyExists' && !cur));
      if (raced && (ownRv === undefined || ownRv === '') && attempt < APPLY_RETRIES) continue;
      throw e;
    }
  }
}

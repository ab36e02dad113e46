// The `eviction` subresource of pods: `POST .../pods/<name>/eviction` with a `policy/v1`
// Eviction deletes the pod with the eviction's delete options, as far as the pod's disruption
// budget allows (checkDisruptionBudget).
import { errors } from '../errors/status.ts';
import { parseBody } from './decode.ts';
import { checkDisruptionBudget } from './disruption-budget.ts';
import type { Handler } from './scope.ts';

const EVICTION_VERSIONS = ['policy/v1', 'policy/v1beta1'];

/** `POST .../pods/<name>/eviction`: deletes the pod when its budget allows and answers 201 with a success Status. */
export const evictionHandler: Handler = async (s) => {
  const buf = await s.body();
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  const { value } = parseBody(buf, s.contentType, ['application/json', 'application/yaml']);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw errors.badRequest('the body of the request must be a JSON object');
  const ev = value as {
    apiVersion?: unknown;
    kind?: unknown;
    metadata?: { name?: unknown; namespace?: unknown };
    deleteOptions?: unknown;
  };
  if (ev.kind !== undefined && ev.kind !== 'Eviction')
    throw errors.badRequest(
      `the kind in the data (${String(ev.kind)}) does not match the expected kind (Eviction)`,
    );
  if (ev.apiVersion !== undefined && !EVICTION_VERSIONS.includes(String(ev.apiVersion)))
    throw errors.badRequest(
      `the API version in the data (${String(ev.apiVersion)}) does not match the expected API version (policy/v1)`,
    );
  const meta = ev.metadata && typeof ev.metadata === 'object' ? ev.metadata : {};
  if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== s.namespace)
    throw errors.badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  if ((meta.name ?? '') !== s.name)
    throw errors.badRequest('name in URL does not match name in Eviction object');
  const opts = (ev.deleteOptions && typeof ev.deleteOptions === 'object' ? ev.deleteOptions : {}) as {
    preconditions?: { uid?: string; resourceVersion?: string };
    gracePeriodSeconds?: number;
    dryRun?: string[];
  };
  if (Array.isArray(opts.dryRun) && opts.dryRun.includes('All')) s.ctx.dryRun = true;
  const refusal = await checkDisruptionBudget(s);
  if (refusal) {
    s.reply(refusal.code, refusal);
    return;
  }
  await s.store.delete(
    s.namespace,
    s.name,
    { preconditions: opts.preconditions, gracePeriodSeconds: opts.gracePeriodSeconds },
    s.ctx,
    'v1',
  );
  s.reply(201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
};

// Binding a pod to a node, as Kubernetes 1.28 does for `POST .../bindings` and
// `POST .../pods/<name>/binding`: the pod's `spec.nodeName` is set once (a pod already on a
// node, being deleted, or held by scheduling gates answers 409), the binding's annotations
// are copied onto the pod, and the PodScheduled condition becomes True. The binding's uid and
// resourceVersion, when given, are preconditions on the pod. Answers 201 with a success Status.
import { errors, StatusError } from '../errors/status.ts';
import { type Binding, validateBinding } from '../registry/kinds/binding.ts';
import type { PodSpec } from '../registry/kinds/pod-spec.ts';
import { checkPreconditions } from '../registry/preconditions.ts';
import type { KObject } from '../storage/types.ts';
import { clone } from '../util/object.ts';
import { rfc3339 } from '../util/time.ts';
import { parseBody } from './decode.ts';
import type { Handler, Scope } from './scope.ts';

/** How many times a binding is redone after a concurrent write to the pod. */
const RETRIES = 5;

interface Condition {
  type?: string;
  status?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** Kubernetes' UpdatePodCondition for PodScheduled=True: the transition time moves only when the status does. */
function setScheduled(pod: KObject, now: string): void {
  const status = (pod.status ??= {}) as { conditions?: Condition[] };
  const conditions = (status.conditions ??= []);
  const next: Condition = {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: now,
  };
  const i = conditions.findIndex((c) => c.type === 'PodScheduled');
  if (i < 0) conditions.push(next);
  else {
    if (conditions[i]!.status === 'True' && conditions[i]!.lastTransitionTime)
      next.lastTransitionTime = conditions[i]!.lastTransitionTime;
    conditions[i] = next;
  }
}

/** The request's body checked: a Binding object (its metadata as sent) in the request's namespace. */
function readBinding(buf: Buffer, s: Scope): { value: unknown; sent: NonNullable<Binding['metadata']> } {
  const { value } = parseBody(buf, s.contentType, ['application/json', 'application/yaml']);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw errors.badRequest('the body of the request must be a JSON object');
  const b = value as Binding & { apiVersion?: unknown; kind?: unknown };
  if (b.kind !== undefined && b.kind !== 'Binding')
    throw errors.badRequest(
      `the kind in the data (${String(b.kind)}) does not match the expected kind (Binding)`,
    );
  if (b.apiVersion !== undefined && b.apiVersion !== 'v1')
    throw errors.badRequest(
      `the API version in the data (${String(b.apiVersion)}) does not match the expected API version (v1)`,
    );
  if (
    b.metadata !== undefined &&
    (typeof b.metadata !== 'object' || b.metadata === null || Array.isArray(b.metadata))
  )
    throw errors.badRequest('metadata: must be an object');
  if (
    b.target !== undefined &&
    (typeof b.target !== 'object' || b.target === null || Array.isArray(b.target))
  )
    throw errors.badRequest('target: must be an object');
  const sent = b.metadata ?? {};
  if (sent.namespace && sent.namespace !== s.namespace)
    throw errors.badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  return { value, sent };
}

/**
 * Binds a pod (a copy of the stored one) to `node`: refused when the binding's preconditions do
 * not hold, the pod is being deleted, already on a node or held by scheduling gates.
 */
function bindPod(
  pod: KObject,
  name: string,
  meta: NonNullable<Binding['metadata']>,
  node: string,
  annotations: object,
): void {
  checkPreconditions('', 'pods', name, meta, pod);
  const spec = (pod.spec ?? {}) as PodSpec & { nodeName?: string; schedulingGates?: unknown[] };
  if (pod.metadata.deletionTimestamp)
    throw errors.conflict(
      '',
      'pods/binding',
      name,
      `pod ${name} is being deleted, cannot be assigned to a host`,
    );
  if (spec.nodeName)
    throw errors.conflict(
      '',
      'pods/binding',
      name,
      `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`,
    );
  if (spec.schedulingGates?.length)
    throw errors.conflict('', 'pods/binding', name, `pod ${name} has non-empty .spec.schedulingGates`);
  spec.nodeName = node;
  pod.spec = spec;
  pod.metadata.annotations = {
    ...(pod.metadata.annotations ?? {}),
    ...(annotations as Record<string, string>),
  };
  setScheduled(pod, rfc3339(Date.now()));
}

export const bindingHandler: Handler = async (s) => {
  const buf = await s.body();
  if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
  const { value, sent } = readBinding(buf, s);
  // mutating admission sees the binding as sent (a create); what it gives back is what binds
  const admitted: KObject = {
    ...(value as KObject),
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { ...sent, namespace: s.namespace },
  };
  const w = {
    operation: 'CREATE' as const,
    namespace: s.namespace,
    name: typeof sent.name === 'string' ? sent.name : '',
    object: admitted,
  };
  const binding = ((await s.ctx.admission?.mutate(w)) ?? admitted) as Binding & KObject;
  const meta = binding.metadata ?? {};
  const name = typeof meta.name === 'string' ? meta.name : '';
  // through a pod's subresource the URL names the pod, and the binding must name the same
  if (s.subresource === 'binding' && name !== s.name)
    throw errors.badRequest('name in URL does not match name in Binding object');
  const causes = validateBinding(binding);
  if (causes.length) throw errors.invalid({ group: '', kind: 'Binding' }, name, causes);
  await s.ctx.admission?.validate({ ...w, name, object: binding });
  if (!name) throw errors.badRequest('Name parameter required.');
  const annotations = meta.annotations ?? {};
  if (typeof annotations !== 'object' || Array.isArray(annotations))
    throw errors.badRequest('metadata.annotations: must be an object of strings');

  const pods = s.registry.byResource('', 'pods')!.store;
  // the pod is written as storage writes it: no admission of a pod update (the binding's own request was the one admitted)
  const ctx = { ...s.ctx, admission: undefined };
  for (let attempt = 0; ; attempt++) {
    const cur = pods.getStored(s.namespace, name);
    if (!cur) throw errors.notFound('', 'pods', name);
    const pod = clone(pods.present(cur.obj, 'v1'));
    bindPod(pod, name, meta, binding.target!.name!, annotations);
    try {
      await pods.update(s.namespace, name, pod, ctx, 'v1', 'binding');
      break;
    } catch (e) {
      if (e instanceof StatusError && e.code === 409 && !meta.resourceVersion && attempt < RETRIES) continue;
      throw e;
    }
  }
  s.reply(201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
};

// How a controller writes: through the registry's stores, as a client of the API would (the
// strategies' defaults and validation, admission when the server gives it, preconditions,
// ownership recorded under the manager `orch-controller-manager`), as the service account of
// its controller in orch-system (Kubernetes' --use-service-account-credentials). Never the HTTP
// layer: a controller sees the store, not requests.
import { StatusError } from '../errors/status.ts';
import type { Registry } from '../registry/registry.ts';
import type { DeleteParams } from '../registry/store.ts';
import type { RequestContext, WriteAdmission } from '../registry/types.ts';
import type { KObject } from '../storage/types.ts';

/** The namespace the controllers' service accounts live in. */
export const CONTROLLER_NAMESPACE = 'orch-system';
/** The manager of what the controllers write (Kubernetes': its user agent, kube-controller-manager). */
export const CONTROLLER_MANAGER = 'orch-controller-manager';

/** What the wiring hands the controllers for their writes' admission (the request pipeline's chain). */
export type AdmissionFor = (a: {
  group: string;
  version: string;
  kind: string;
  plural: string;
  subresource: string;
  ctx: RequestContext;
  options: Record<string, unknown>;
}) => WriteAdmission;

export interface ControllerEnv {
  registry: Registry;
  /** Admission of the controllers' writes; without it they are admitted by nobody. */
  admission?: AdmissionFor;
  now: () => number;
}

/** The reason of a StatusError (or undefined). */
export const reasonOf = (e: unknown): string | undefined => (e instanceof StatusError ? e.reason : undefined);
/** Whether the error says the object (or its namespace) is not there. */
export const isNotFound = (e: unknown): boolean => e instanceof StatusError && e.code === 404;
export const isConflict = (e: unknown): boolean => e instanceof StatusError && e.code === 409;
/** Whether a create failed because the namespace is being terminated (not retried, as Kubernetes does not). */
export const isNamespaceTerminating = (e: unknown): boolean =>
  e instanceof StatusError && !!e.details?.causes?.some((c) => c.reason === 'NamespaceTerminating');

export class ControllerClient {
  readonly user: RequestContext['user'];

  /** `account`: the controller's service account in orch-system (Kubernetes' name for it). */
  constructor(
    readonly env: ControllerEnv,
    readonly account: string,
  ) {
    this.user = {
      username: `system:serviceaccount:${CONTROLLER_NAMESPACE}:${account}`,
      groups: [
        'system:serviceaccounts',
        `system:serviceaccounts:${CONTROLLER_NAMESPACE}`,
        'system:authenticated',
      ],
    };
  }

  private served(group: string, plural: string) {
    const s = this.env.registry.byResource(group, plural);
    if (!s)
      throw new StatusError(404, 'NotFound', `the server could not find the requested resource (${plural})`);
    return s;
  }

  private context(
    group: string,
    plural: string,
    version: string,
    subresource: string,
    options: Record<string, unknown>,
  ): RequestContext {
    const ctx: RequestContext = {
      user: this.user,
      warnings: [],
      dryRun: false,
      fieldManager: CONTROLLER_MANAGER,
      userAgent: `${CONTROLLER_MANAGER}/${this.account}`,
    };
    const kind = this.served(group, plural).def.kind;
    ctx.admission = this.env.admission?.({ group, version, kind, plural, subresource, ctx, options });
    return ctx;
  }

  /** The stored object, or undefined. */
  get(group: string, plural: string, namespace: string, name: string): KObject | undefined {
    return this.env.registry.byResource(group, plural)?.store.getStored(namespace, name)?.obj;
  }

  async create(
    group: string,
    plural: string,
    namespace: string,
    obj: KObject,
    version = 'v1',
  ): Promise<KObject> {
    const s = this.served(group, plural);
    const ctx = this.context(group, plural, version, '', {
      kind: 'CreateOptions',
      apiVersion: 'meta.orch.io/v1',
    });
    return s.store.create(namespace, structuredClone(obj), ctx, version);
  }

  /** Replaces the object (or its status, with `subresource` 'status'); the resourceVersion it carries must still be current. */
  async update(
    group: string,
    plural: string,
    obj: KObject,
    version = 'v1',
    subresource = '',
  ): Promise<KObject> {
    const s = this.served(group, plural);
    const ctx = this.context(group, plural, version, subresource, {
      kind: 'UpdateOptions',
      apiVersion: 'meta.orch.io/v1',
    });
    const r = await s.store.update(
      obj.metadata.namespace ?? '',
      obj.metadata.name!,
      structuredClone(obj),
      ctx,
      version,
      subresource,
    );
    return r.obj;
  }

  /** Deletes every object of a namespace (a delete collection with this propagation). */
  async deleteCollection(
    group: string,
    plural: string,
    namespace: string,
    propagationPolicy: string,
  ): Promise<void> {
    const s = this.served(group, plural);
    const version = s.def.versions[0]!;
    const ctx = this.context(group, plural, version, '', {
      kind: 'DeleteOptions',
      apiVersion: 'meta.orch.io/v1',
      propagationPolicy,
    });
    await s.store.deleteCollection(namespace, {}, { propagationPolicy }, ctx, version);
  }

  /** Deletes the object if it still has uid `uid` (a newer object of the same name is left alone). */
  async delete(
    group: string,
    plural: string,
    namespace: string,
    name: string,
    uid?: string,
    propagationPolicy?: string,
  ): Promise<void> {
    const s = this.served(group, plural);
    const p: DeleteParams = { preconditions: uid ? { uid } : undefined, propagationPolicy };
    const ctx = this.context(group, plural, 'v1', '', {
      kind: 'DeleteOptions',
      apiVersion: 'meta.orch.io/v1',
      ...(propagationPolicy ? { propagationPolicy } : {}),
    });
    await s.store.delete(namespace, name, p, ctx, s.def.versions[0]!);
  }
}

// The parameter objects a binding gives its policy, as Kubernetes 1.28 collects them: none when
// the policy has no paramKind or the binding no paramRef (the policy runs once, `params` null);
// else the object paramRef names, or every object its selector matches, in paramRef's namespace
// (for a namespaced kind: the request's namespace when paramRef names none). Nothing found with
// `parameterNotFoundAction: Deny` is an error; with `Allow` the policy is not run.

import { type LabelSelectorObj, selectorMatches } from '../../registry/kinds/common.ts';
import type { Registry, Served } from '../../registry/registry.ts';
import type { KObject } from '../../storage/types.ts';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export class ParamError extends Error {}

/** Go's `%v` of a ParamKind (`&ParamKind{APIVersion:v1,Kind:ConfigMap,}`). */
function paramKindText(pk: Rec): string {
  return `&ParamKind{APIVersion:${text(pk.apiVersion)},Kind:${text(pk.kind)},}`;
}

/** The served resource of a paramKind (group/version and kind). */
function resolve(registry: Registry, pk: Rec): { served: Served; version: string } | undefined {
  const apiVersion = text(pk.apiVersion);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  for (const served of registry.all()) {
    const d = served.def;
    if (
      d.group === group &&
      d.kind === text(pk.kind) &&
      registry.servesGroupVersion(group, version) &&
      d.versions.includes(version)
    )
      return { served, version };
  }
  return undefined;
}

/** The parameter objects to evaluate with (null: run once without parameters); throws ParamError. */
export function collectParams(
  registry: Registry,
  paramKind: unknown,
  paramRef: unknown,
  requestNamespace: string,
): (KObject | null)[] {
  if (!paramKind || typeof paramKind !== 'object') return [null];
  if (!paramRef || typeof paramRef !== 'object') return [null];
  const pk = rec(paramKind);
  const ref = rec(paramRef);
  const found = resolve(registry, pk);
  if (!found) throw new ParamError(`paramKind kind \`${paramKindText(pk)}\` not known`);
  const { served, version } = found;
  let namespace = '';
  if (served.def.namespaced) {
    namespace = text(ref.namespace) || requestNamespace;
    if (!namespace)
      throw new ParamError(
        'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources',
      );
  } else if (text(ref.namespace))
    throw new ParamError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  const store = served.store;
  let params: KObject[];
  const name = text(ref.name);
  if (name) {
    if (ref.selector) throw new ParamError('paramRef.name and paramRef.selector are mutually exclusive');
    const o = store.getStored(namespace, name)?.obj;
    params = o ? [o] : [];
  } else if (ref.selector && typeof ref.selector === 'object') {
    const prefix = store.prefix(namespace);
    params = registry.storage
      .list(store.bucket, prefix)
      .map((s) => s.obj)
      .filter((o) =>
        selectorMatches(
          ref.selector as LabelSelectorObj,
          o.metadata?.labels as Record<string, string> | undefined,
        ),
      );
  } else throw new ParamError('one of name or selector must be provided');
  if (params.length === 0 && ref.parameterNotFoundAction === 'Deny')
    throw new ParamError('no params found for policy binding with `Deny` parameterNotFoundAction');
  return params.map((p) => store.present(p, version));
}

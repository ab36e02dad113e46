// IngressClass (networking.orch.io/v1): names the controller that implements a class of
// ingresses. Cluster-scoped. `spec.controller` is a domain-prefixed path that never changes;
// the annotation `ingressclass.orch.io/is-default-class: "true"` makes a class the default
// (the DefaultIngressClass admission plugin reads it).
import type { StatusCause } from '../../errors/status.ts';
import { obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { nameProblem } from '../validation.ts';
import { Causes, causesOf, dnsSubdomain, fieldErr, immutable } from './common.ts';
import { defineKind, printed } from './define.ts';

export const DEFAULT_INGRESS_CLASS_ANNOTATION = 'ingressclass.orch.io/is-default-class';

export interface IngressClass {
  metadata: KObject['metadata'];
  spec?: {
    controller?: string;
    parameters?: { apiGroup?: string; kind?: string; name?: string; scope?: string; namespace?: string };
  };
}

const schema = objectSchema({
  spec: obj({
    controller: str(),
    parameters: obj(
      { apiGroup: str(), kind: str(), name: str(), scope: str(), namespace: str() },
      { required: ['kind', 'name'] },
    ),
  }),
});

const PATH_CHARS = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** A path prefixed by a domain (`acme.io/foo`), as controller names are written. */
export function domainPrefixedPath(field: string, v: string): StatusCause[] {
  if (!v) return [fieldErr.required(field)];
  const slash = v.indexOf('/');
  if (slash <= 0 || slash === v.length - 1)
    return [fieldErr.invalid(field, v, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = v.slice(0, slash);
  const causes = causesOf(
    nameProblem(host, 'subdomain') ? [fieldErr.invalid(field, host, nameProblem(host, 'subdomain')!)] : [],
  );
  if (!PATH_CHARS.test(v.slice(slash)))
    causes.invalid(field, v.slice(slash), 'segment of ' + v + ' must be a valid path');
  return causes;
}

function validateIngressClass(o: KObject): StatusCause[] {
  const spec = (o as IngressClass).spec ?? {};
  const causes = new Causes();
  const controller = spec.controller ?? '';
  if (controller.length > 250) causes.tooLong('spec.controller', 250);
  causes.push(...domainPrefixedPath('spec.controller', controller));
  const p = spec.parameters;
  if (p) {
    if (p.apiGroup) causes.push(...dnsSubdomain('spec.parameters.apiGroup', p.apiGroup));
    if (!p.kind) causes.required('spec.parameters.kind');
    else if (p.kind.includes('/') || p.kind.includes('%'))
      causes.invalid('spec.parameters.kind', p.kind, "may not contain '/'");
    if (!p.name) causes.required('spec.parameters.name');
    else if (p.name.includes('/') || p.name.includes('%'))
      causes.invalid('spec.parameters.name', p.name, "may not contain '/'");
    if (p.scope === 'Namespace') {
      if (!p.namespace)
        causes.required('spec.parameters.namespace', "`parameters.scope` is set to 'Namespace'");
      else
        causes.push(
          ...(nameProblem(p.namespace, 'label')
            ? [fieldErr.invalid('spec.parameters.namespace', p.namespace, nameProblem(p.namespace, 'label')!)]
            : []),
        );
    } else if (p.scope === 'Cluster') {
      if (p.namespace)
        causes.forbidden('spec.parameters.namespace', "`parameters.scope` is set to 'Cluster'");
    } else causes.notSupported('spec.parameters.scope', p.scope ?? '', ['Cluster', 'Namespace']);
  }
  return causes;
}

function prepare(o: KObject): void {
  const p = (o as IngressClass).spec?.parameters;
  if (p && typeof p === 'object') p.scope ??= 'Cluster';
}

export function isDefaultIngressClass(o: KObject): boolean {
  return o.metadata.annotations?.[DEFAULT_INGRESS_CLASS_ANNOTATION] === 'true';
}

export const ingressClassDef = defineKind({
  group: 'networking.orch.io',
  kind: 'IngressClass',
  namespaced: false,
  schema,
  prepare,
  validate: validateIngressClass,
  validateUpdate: (o, old) => [
    ...validateIngressClass(o),
    ...immutable(
      'spec.controller',
      (o as IngressClass).spec?.controller,
      (old as IngressClass).spec?.controller,
    ),
  ],
  table: printed('ingressClass', {
    Controller: 'spec.controller',
    Parameters: (o) => {
      const p = (o as IngressClass).spec?.parameters;
      if (!p) return '<none>';
      return `${p.kind}${p.apiGroup ? `.${p.apiGroup}` : ''}/${p.name}`;
    },
  }),
  tracksGeneration: true,
  normalize: false,
});

// Ingress (networking.orch.io/v1) with the `status` subresource: HTTP routes from hosts and
// paths to service backends, served by the controller of its class (`spec.ingressClassName`,
// filled with the default class by the DefaultIngressClass admission plugin).
import type { StatusCause } from '../../errors/status.ts';
import { arr, int, keyedList, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { nameProblem } from '../validation.ts';
import {
  Causes,
  dnsLabel,
  dnsSubdomain,
  fieldErr,
  ianaSvcName,
  keepAllButStatus,
  portNumber,
  specStatusHooks,
} from './common.ts';
import { defineKind, printed } from './define.ts';
import { isIp as isIP } from './service-allocators.ts';

/** The annotation older clients name a class with (`spec.ingressClassName` replaces it). */
export const INGRESS_CLASS_ANNOTATION = 'orch.io/ingress.class';

export interface IngressBackend {
  service?: { name?: string; port?: { name?: string; number?: number } };
  resource?: { apiGroup?: string; kind?: string; name?: string };
}

export interface Ingress {
  metadata: KObject['metadata'];
  spec?: {
    ingressClassName?: string;
    defaultBackend?: IngressBackend;
    tls?: { hosts?: string[]; secretName?: string }[];
    rules?: {
      host?: string;
      http?: { paths?: { path?: string; pathType?: string; backend?: IngressBackend }[] };
    }[];
  };
  status?: {
    loadBalancer?: {
      ingress?: {
        ip?: string;
        hostname?: string;
        ports?: { port?: number; protocol?: string; error?: string }[];
      }[];
    };
  };
}

const backend = obj({
  service: obj({ name: str(), port: obj({ name: str(), number: int() }) }, { required: ['name'] }),
  resource: obj({ apiGroup: str(), kind: str(), name: str() }, { required: ['kind', 'name'] }),
});

const schema = objectSchema({
  spec: obj({
    ingressClassName: str(),
    defaultBackend: backend,
    tls: arr(obj({ hosts: arr(str(), { 'x-orch-list-type': 'atomic' }), secretName: str() }), {
      'x-orch-list-type': 'atomic',
    }),
    rules: arr(
      obj({
        host: str(),
        http: obj(
          {
            paths: arr(
              obj({ path: str(), pathType: str(), backend }, { required: ['pathType', 'backend'] }),
              { 'x-orch-list-type': 'atomic' },
            ),
          },
          { required: ['paths'] },
        ),
      }),
      { 'x-orch-list-type': 'atomic' },
    ),
  }),
  status: obj({
    loadBalancer: obj({
      ingress: arr(
        obj({
          ip: str(),
          hostname: str(),
          ports: keyedList(
            obj({ port: int(), protocol: str(), error: str() }, { required: ['port', 'protocol'] }),
            ['port'],
            { 'x-orch-list-type': 'atomic' },
          ),
        }),
        { 'x-orch-list-type': 'atomic' },
      ),
    }),
  }),
});

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const BAD_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const BAD_SUFFIXES = ['/..', '/.'];

function wildcardOrSubdomain(field: string, host: string): StatusCause[] {
  if (host.startsWith('*.')) {
    const rest = host.slice(2);
    const p = nameProblem(rest, 'subdomain');
    return p
      ? [
          fieldErr.invalid(
            field,
            host,
            "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
          ),
        ]
      : [];
  }
  return dnsSubdomain(field, host);
}

function validateBackend(b: IngressBackend, p: string): StatusCause[] {
  const causes = new Causes();
  if (b.resource && b.service)
    return [fieldErr.invalid(p, '', 'cannot set both resource and service backends')];
  if (b.resource) {
    if (!b.resource.kind) causes.required(`${p}.resource.kind`);
    if (!b.resource.name) causes.required(`${p}.resource.name`);
    return causes;
  }
  if (!b.service) return [fieldErr.invalid(p, '', 'resource or service backend is required')];
  const s = b.service;
  if (!s.name) causes.required(`${p}.service.name`);
  else causes.push(...dnsLabel(`${p}.service.name`, s.name));
  const name = s.port?.name ?? '';
  const num = s.port?.number ?? 0;
  if (name && num) causes.invalid(p, '', 'cannot set both port name & port number');
  else if (name) causes.push(...ianaSvcName(`${p}.service.port.name`, name));
  else if (num) causes.push(...portNumber(`${p}.service.port.number`, num));
  else causes.required(p, 'port name or number is required');
  return causes;
}

function validateSpec(o: KObject): Causes {
  const spec = (o as Ingress).spec ?? {};
  const causes = new Causes();
  if (!(spec.rules ?? []).length && !spec.defaultBackend)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec',
      message: `Invalid value: ${spec.rules ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)'}: either \`defaultBackend\` or \`rules\` must be specified`,
    });
  if (spec.defaultBackend) causes.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  (spec.rules ?? []).forEach((r, i) => {
    const p = `spec.rules[${i}]`;
    if (r.host) {
      if (isIP(r.host)) causes.invalid(`${p}.host`, r.host, 'must be a DNS name, not an IP address');
      else
        causes.push(
          ...(r.host.includes('*')
            ? wildcardOrSubdomain(`${p}.host`, r.host)
            : dnsSubdomain(`${p}.host`, r.host)),
        );
    }
    if (!r.http) return;
    const paths = r.http.paths ?? [];
    if (!paths.length) causes.required(`${p}.http.paths`);
    paths.forEach((hp, j) => {
      const pp = `${p}.http.paths[${j}]`;
      const path = hp.path ?? '';
      if (hp.pathType === undefined) {
        causes.required(`${pp}.pathType`, 'pathType must be specified');
        return;
      }
      if (hp.pathType === 'Exact' || hp.pathType === 'Prefix') {
        if (!path.startsWith('/')) causes.invalid(`${pp}.path`, path, 'must be an absolute path');
        for (const seq of BAD_SEQUENCES)
          if (path.includes(seq)) causes.invalid(`${pp}.path`, path, `must not contain '${seq}'`);
        for (const suf of BAD_SUFFIXES)
          if (path.endsWith(suf)) causes.invalid(`${pp}.path`, path, `cannot end with '${suf}'`);
      } else if (hp.pathType === 'ImplementationSpecific') {
        if (path && !path.startsWith('/')) causes.invalid(`${pp}.path`, path, 'must be an absolute path');
      } else causes.notSupported(`${pp}.pathType`, hp.pathType, PATH_TYPES);
      causes.push(...validateBackend(hp.backend ?? {}, `${pp}.backend`));
    });
  });
  (spec.tls ?? []).forEach((t, i) => {
    (t.hosts ?? []).forEach((h, j) => {
      causes.push(...wildcardOrSubdomain(`spec.tls[${i}].hosts[${j}]`, h));
    });
    if (t.secretName) causes.push(...dnsSubdomain(`spec.tls[${i}].secretName`, t.secretName));
  });
  if (spec.ingressClassName !== undefined)
    causes.push(...dnsSubdomain('spec.ingressClassName', spec.ingressClassName));
  return causes;
}

function validateCreate(o: KObject): StatusCause[] {
  const causes = validateSpec(o);
  const annotated = o.metadata.annotations?.[INGRESS_CLASS_ANNOTATION];
  const named = (o as Ingress).spec?.ingressClassName;
  if (annotated !== undefined && named !== undefined && annotated !== named)
    causes.invalid(
      `annotations.${INGRESS_CLASS_ANNOTATION}`,
      annotated,
      'can not be set when the class field is also set',
    );
  return causes;
}

function validateStatus(o: KObject): StatusCause[] {
  const causes = new Causes();
  ((o as Ingress).status?.loadBalancer?.ingress ?? []).forEach((ing, i) => {
    const p = `status.loadBalancer.ingress[${i}]`;
    if (ing.ip && !isIP(ing.ip)) causes.invalid(`${p}.ip`, ing.ip, 'must be a valid IP address');
    if (ing.hostname) {
      causes.push(...dnsSubdomain(`${p}.hostname`, ing.hostname));
      if (isIP(ing.hostname))
        causes.invalid(`${p}.hostname`, ing.hostname, 'must be a DNS name, not an IP address');
    }
  });
  return causes;
}

function hosts(o: KObject): string {
  const hs = ((o as Ingress).spec?.rules ?? []).map((r) => r.host || '*');
  if (!hs.length) return '*';
  const shown = hs.slice(0, 4).join(',');
  return hs.length > 4 ? `${shown} + ${hs.length - 4} more...` : shown;
}

export const ingressDef = defineKind({
  group: 'networking.orch.io',
  kind: 'Ingress',
  namespaced: true,
  shortNames: ['ing'],
  subresources: ['status'],
  schema,
  ...specStatusHooks(undefined, () => ({ loadBalancer: {} })),
  prepareForStatusUpdate: keepAllButStatus,
  validate: validateCreate,
  validateUpdate: (o) => [...validateSpec(o), ...validateStatus(o)],
  zeroValue: () => ({ status: { loadBalancer: {} } }),
  table: printed('ingress', {
    Class: (o) => (o as Ingress).spec?.ingressClassName ?? '<none>',
    Hosts: hosts,
    Address: (o) =>
      ((o as Ingress).status?.loadBalancer?.ingress ?? []).map((i) => i.ip || i.hostname || '').join(','),
    Ports: (o) => ((o as Ingress).spec?.tls?.length ? '80, 443' : '80'),
  }),
  tracksGeneration: true,
  normalize: false,
});

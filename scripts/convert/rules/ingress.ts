// Ingress (extensions/v1beta1, networking.orch.io/v1beta1) to networking.orch.io/v1: `backend`
// is `defaultBackend`; `serviceName`/`servicePort` become `service.name` and `service.port`
// (`number` or `name`); every path needs a `pathType` (ImplementationSpecific keeps the old
// matching).
import type { Obj, Rule } from '../types.ts';

function backend(b: Obj | undefined, where: string, notes: string[]): Obj | undefined {
  if (!b) return b;
  if (b.resource) return { resource: b.resource };
  const out: Obj = { service: { name: b.serviceName } };
  const port = b.servicePort;
  if (typeof port === 'number') out.service.port = { number: port };
  else if (typeof port === 'string' && /^[0-9]+$/.test(port)) out.service.port = { number: Number(port) };
  else if (typeof port === 'string') out.service.port = { name: port };
  else notes.push(`${where}: no servicePort; networking.orch.io/v1 requires service.port`);
  return out;
}

export const ingressRules: Rule[] = [
  {
    kinds: ['Ingress'],
    from: ['extensions/v1beta1', 'networking.orch.io/v1beta1'],
    to: 'networking.orch.io/v1',
    convert: (o, _from, notes) => {
      const spec = o.spec ?? {};
      if (spec.backend) {
        spec.defaultBackend = backend(spec.backend, 'spec.backend', notes);
        delete spec.backend;
      }
      (spec.rules ?? []).forEach((r: Obj, i: number) => {
        (r.http?.paths ?? []).forEach((p: Obj, j: number) => {
          const at = `spec.rules[${i}].http.paths[${j}]`;
          p.backend = backend(p.backend, `${at}.backend`, notes);
          if (!p.pathType) {
            p.pathType = 'ImplementationSpecific';
            notes.push(
              `${at}.pathType: set to ImplementationSpecific (the old matching); Prefix or Exact are portable`,
            );
          }
        });
      });
      return o;
    },
  },
];

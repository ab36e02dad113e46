// DefaultIngressClass (doc3 plugin table: adds the default ingress class to creations lacking
// one; more than one default rejects all creations). A class is the default when it carries
// the annotation `ingressclass.orch.io/is-default-class: "true"`. An ingress naming a class,
// in `spec.ingressClassName` or in the older `orch.io/ingress.class` annotation, is left alone.
import { INGRESS_CLASS_ANNOTATION, type Ingress } from '../../registry/kinds/ingress.ts';
import { isDefaultIngressClass } from '../../registry/kinds/ingressclass.ts';
import type { Registry } from '../../registry/registry.ts';
import type { AdmissionPlugin } from '../types.ts';
import { admissionForbidden, isWriteOf, listAll } from './support.ts';

export function defaultIngressClassPlugin(registry: Registry): AdmissionPlugin {
  return {
    name: 'DefaultIngressClass',
    handles: (a) => isWriteOf(a, 'networking.orch.io', 'ingresses', ['CREATE']),
    async mutate(a) {
      const ing = a.object as Ingress;
      if (ing.spec?.ingressClassName !== undefined) return;
      if (ing.metadata.annotations?.[INGRESS_CLASS_ANNOTATION] !== undefined) return;
      const defaults = (await listAll(registry, 'networking.orch.io', 'ingressclasses')).filter(
        isDefaultIngressClass,
      );
      if (defaults.length > 1)
        throw admissionForbidden(
          a,
          `Internal error occurred: ${defaults.length} default IngressClasses were found, only 1 allowed`,
        );
      if (defaults.length === 0) return;
      ing.spec = { ...(ing.spec ?? {}), ingressClassName: defaults[0]!.metadata.name };
    },
  };
}

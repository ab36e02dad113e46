// AlwaysPullImages (doc3 plugin table: sets image pull policy `Always` on new workload units):
// as Kubernetes 1.28, every container of a pod created, or of a pod updated with a new image,
// gets `imagePullPolicy: Always` (so a node pulls, and checks the pull credentials, every
// time); the validating phase refuses such a pod whose containers a later mutation set back.
import type { KObject } from '../../storage/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { containersOf, forbidden, isPodWrite, podSpec } from './util.ts';

/** An update whose every container image was there before (by container, in the old pod). */
function noNewImages(a: AdmissionAttributes): boolean {
  if (a.operation !== 'UPDATE' || !a.oldObject) return false;
  const old = new Set(
    containersOf((a.oldObject as KObject & { spec?: object }).spec ?? {}).map(({ c }) => c.image),
  );
  return containersOf(podSpec(a)).every(({ c }) => old.has(c.image));
}

export const alwaysPullImages = (): AdmissionPlugin => ({
  name: 'AlwaysPullImages',
  handles: (a) => isPodWrite(a) && !!a.object,
  mutate(a) {
    if (noNewImages(a)) return;
    for (const { c } of containersOf(podSpec(a))) c.imagePullPolicy = 'Always';
  },
  validate(a) {
    if (noNewImages(a)) return;
    const wrong = containersOf(podSpec(a)).filter(({ c }) => c.imagePullPolicy !== 'Always');
    if (wrong.length)
      throw forbidden(
        a,
        wrong
          .map(
            ({ c, path }) =>
              `${path}.imagePullPolicy: Unsupported value: "${c.imagePullPolicy ?? ''}": supported values: "Always"`,
          )
          .join(', '),
      );
  },
});

// AlwaysDeny (doc3 plugin table: rejects all; deprecated): every write is refused, as Kubernetes
// 1.28 refuses it (403 Forbidden, "admission control is denying all modifications"), in the
// mutating phase already, so no later plugin or webhook sees it.
import type { AdmissionPlugin } from '../types.ts';
import { forbidden } from './util.ts';

export const alwaysDeny = (): AdmissionPlugin => ({
  name: 'AlwaysDeny',
  mutate(a) {
    throw forbidden(a, 'admission control is denying all modifications');
  },
  validate(a) {
    throw forbidden(a, 'admission control is denying all modifications');
  },
});

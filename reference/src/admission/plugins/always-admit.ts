// AlwaysAdmit (doc3 plugin table: admits all; deprecated): every request passes.
import type { AdmissionPlugin } from '../types.ts';

export const alwaysAdmit = (): AdmissionPlugin => ({
  name: 'AlwaysAdmit',
  validate() {},
});

// Lease (coordination.orch.io/v1): leader election and node heartbeats. Times are MicroTime.
import type { StatusCause } from '../../errors/status.ts';
import { int, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { Causes, microTime } from './common.ts';
import { defineKind, printed } from './define.ts';

const schema = objectSchema({
  spec: obj({
    holderIdentity: str(),
    leaseDurationSeconds: int(),
    acquireTime: microTime(),
    renewTime: microTime(),
    leaseTransitions: int(),
  }),
});

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
}

function validateLease(o: KObject): StatusCause[] {
  const causes = new Causes();
  const spec = (o.spec ?? {}) as LeaseSpec;
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0)
    causes.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0');
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0)
    causes.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0');
  return causes;
}

export const leaseDef = defineKind({
  group: 'coordination.orch.io',
  kind: 'Lease',
  namespaced: true,
  protobuf: true,
  schema,
  allowCreateOnUpdate: true,
  table: printed('lease', { Holder: 'spec.holderIdentity' }),
  validate: validateLease,
});

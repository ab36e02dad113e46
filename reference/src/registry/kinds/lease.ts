// Lease (coordination.orch.io/v1): leader election and node heartbeats. Times are MicroTime.
import { int, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { StatusCause } from '../../errors/status.ts';
import type { KObject } from '../../storage/types.ts';
import type { ResourceDef } from '../types.ts';
import { AGE_COLUMN, ALL_VERBS, fieldErr, microTime, NAME_COLUMN, normalizeBySchema } from './common.ts';

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
  const causes: StatusCause[] = [];
  const spec = (o.spec ?? {}) as LeaseSpec;
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0)
    causes.push(
      fieldErr.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'),
    );
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0)
    causes.push(
      fieldErr.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'),
    );
  return causes;
}

export const leaseDef: ResourceDef = {
  group: 'coordination.orch.io',
  versions: ['v1'],
  kind: 'Lease',
  listKind: 'LeaseList',
  plural: 'leases',
  singular: 'lease',
  namespaced: true,
  verbs: ALL_VERBS,
  subresources: [],
  protobuf: true,
  schema,
  strategy: {
    tracksGeneration: false,
    allowUnconditionalUpdate: true,
    allowCreateOnUpdate: true,
    table: [
      NAME_COLUMN,
      {
        name: 'Holder',
        type: 'string',
        description: 'holderIdentity contains the identity of the holder of a current lease.',
        cell: (o) => (o.spec as LeaseSpec | undefined)?.holderIdentity ?? '',
      },
      AGE_COLUMN,
    ],
    prepareForCreate: (o) => void normalizeBySchema(o, schema, 'Lease'),
    prepareForUpdate: (o) => void normalizeBySchema(o, schema, 'Lease'),
    validate: validateLease,
  },
};

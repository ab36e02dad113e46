// PriorityLevelConfiguration (flowcontrol.apiserver.orch.io v1beta3, and the deprecated v1beta2)
// with the `status` subresource. Cluster-scoped. One stored shape (v1beta3): v1beta2's
// `spec.limited.assuredConcurrencyShares` is v1beta3's `spec.limited.nominalConcurrencyShares`,
// renamed both ways. As in Kubernetes 1.28 a zero (or absent) value becomes the default 30 in
// either version (no annotation keeps a zero; shares must be positive), so every stored object
// reads the same through both versions. Defaults: lendablePercent 0; queuing 64 queues, hand
// size 8, queue length limit 50; exempt shares and lendablePercent 0. The mandatory levels
// (`exempt`, `catch-all`) keep their fixed spec, except `exempt`'s `spec.exempt`.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { Causes, keepAllButStatus, specStatusHooks } from './common.ts';
import { defineKind, printed } from './define.ts';
import { mandatoryPriorityLevelSpec, type PriorityLevelSpec } from './flowcontrol-bootstrap.ts';
import {
  FLOWCONTROL_GROUP,
  FLOWCONTROL_VERSIONS,
  flowcontrolVersionInfo,
  sameSpec,
  validateConditions,
} from './flowcontrol-common.ts';

export const DEFAULT_CONCURRENCY_SHARES = 30;
export const DEFAULT_QUEUES = 64;
export const DEFAULT_HAND_SIZE = 8;
export const DEFAULT_QUEUE_LENGTH_LIMIT = 50;
const MAX_QUEUES = 10_000_000;
const MAX_HASH_BITS = 60;

interface Limited {
  nominalConcurrencyShares?: number;
  assuredConcurrencyShares?: number;
  lendablePercent?: number;
  borrowingLimitPercent?: number;
  limitResponse?: {
    type?: string;
    queuing?: { queues?: number; handSize?: number; queueLengthLimit?: number };
  };
}

interface PriorityLevel {
  metadata: KObject['metadata'];
  spec?: PriorityLevelSpec & { limited?: Limited };
  status?: { conditions?: { type?: string }[] };
}

const specOf = (o: KObject) => ((o as PriorityLevel).spec ?? {}) as NonNullable<PriorityLevel['spec']>;

/** Objects written through v1beta2 (their errors name v1beta2's field). */
const writtenAsV1beta2 = new WeakSet<object>();

/** Defaults shared by both versions; `shares` is the version's name of the concurrency shares. */
function applyDefaults(o: KObject, shares: 'nominalConcurrencyShares' | 'assuredConcurrencyShares'): void {
  const spec = specOf(o);
  const exempt = spec.exempt;
  if (exempt && typeof exempt === 'object') {
    exempt.nominalConcurrencyShares ??= 0;
    exempt.lendablePercent ??= 0;
  }
  const limited = spec.limited as Limited | undefined;
  if (limited && typeof limited === 'object') {
    if (!limited[shares]) limited[shares] = DEFAULT_CONCURRENCY_SHARES;
    limited.lendablePercent ??= 0;
    limited.limitResponse ??= {};
    limited.limitResponse.type ??= '';
    const q = limited.limitResponse.queuing;
    if (q && typeof q === 'object') {
      if (!q.handSize) q.handSize = DEFAULT_HAND_SIZE;
      if (!q.queues) q.queues = DEFAULT_QUEUES;
      if (!q.queueLengthLimit) q.queueLengthLimit = DEFAULT_QUEUE_LENGTH_LIMIT;
    }
  }
}

/** A v1beta2 object (defaulted as v1beta2 does) in the stored v1beta3 shape. */
export function fromV1beta2(o: KObject): KObject {
  applyDefaults(o, 'assuredConcurrencyShares');
  const limited = specOf(o).limited;
  if (limited && typeof limited === 'object') {
    const { assuredConcurrencyShares, ...rest } = limited;
    specOf(o).limited = { nominalConcurrencyShares: assuredConcurrencyShares, ...rest };
  }
  writtenAsV1beta2.add(o);
  return o;
}

/** A stored object as v1beta2 shows it. */
export function toV1beta2(o: KObject): KObject {
  const limited = specOf(o).limited;
  if (limited && typeof limited === 'object') {
    const { nominalConcurrencyShares, ...rest } = limited;
    specOf(o).limited = { assuredConcurrencyShares: nominalConcurrencyShares, ...rest };
  }
  return o;
}

function validateQueuing(
  q: NonNullable<NonNullable<Limited['limitResponse']>['queuing']>,
  path: string,
): StatusCause[] {
  const causes = new Causes();
  const qll = q.queueLengthLimit ?? 0;
  const queues = q.queues ?? 0;
  const hand = q.handSize ?? 0;
  if (qll <= 0) causes.invalid(`${path}.queueLengthLimit`, qll, 'must be positive');
  if (queues <= 0) causes.invalid(`${path}.queues`, queues, 'must be positive');
  else if (queues > MAX_QUEUES)
    causes.invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`);
  if (hand <= 0) causes.invalid(`${path}.handSize`, hand, 'must be positive');
  else if (hand > queues)
    causes.invalid(`${path}.handSize`, hand, `should not be greater than queues (${queues})`);
  else if (Math.ceil(Math.log2(queues) * hand) > MAX_HASH_BITS)
    causes.invalid(
      `${path}.handSize`,
      hand,
      `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`,
    );
  return causes;
}

function validateLimited(l: Limited, sharesField: string): StatusCause[] {
  const path = 'spec.limited';
  const causes = new Causes();
  const shares = l.nominalConcurrencyShares ?? 0;
  if (shares <= 0) causes.invalid(`${path}.${sharesField}`, shares, 'must be positive');
  const lr = l.limitResponse ?? {};
  const lrPath = `${path}.limitResponse`;
  switch (lr.type) {
    case 'Reject':
      if (lr.queuing != null)
        causes.forbidden(`${lrPath}.queuing`, 'must be nil if limited.limitResponse.type is not Limited');
      break;
    case 'Queue':
      if (lr.queuing == null)
        causes.required(`${lrPath}.queuing`, 'must not be empty if limited.limitResponse.type is Limited');
      else causes.push(...validateQueuing(lr.queuing, `${lrPath}.queuing`));
      break;
    default:
      causes.notSupported(`${lrPath}.type`, lr.type ?? '', ['Queue', 'Reject']);
  }
  if (l.lendablePercent != null && !(l.lendablePercent >= 0 && l.lendablePercent <= 100))
    causes.invalid(`${path}.lendablePercent`, l.lendablePercent, 'must be between 0 and 100, inclusive');
  if (l.borrowingLimitPercent != null && l.borrowingLimitPercent < 0)
    causes.invalid(
      `${path}.borrowingLimitPercent`,
      l.borrowingLimitPercent,
      'if specified, must be a non-negative integer',
    );
  return causes;
}

function validateExempt(e: NonNullable<PriorityLevelSpec['exempt']>): StatusCause[] {
  const causes = new Causes();
  if (e.nominalConcurrencyShares != null && e.nominalConcurrencyShares < 0)
    causes.invalid(
      'spec.exempt.nominalConcurrencyShares',
      e.nominalConcurrencyShares,
      'must be a non-negative integer',
    );
  if (e.lendablePercent != null && !(e.lendablePercent >= 0 && e.lendablePercent <= 100))
    causes.invalid('spec.exempt.lendablePercent', e.lendablePercent, 'must be between 0 and 100, inclusive');
  return causes;
}

function validatePriorityLevel(o: KObject): StatusCause[] {
  const name = o.metadata.name ?? '';
  const spec = specOf(o);
  const causes = new Causes();
  if ((name === 'exempt') !== (spec.type === 'Exempt'))
    causes.invalid('spec.type', spec.type ?? '', "type must be 'Exempt' if and only if name is 'exempt'");
  switch (spec.type) {
    case 'Exempt':
      if (spec.limited != null) causes.forbidden('spec.limited', 'must be nil if the type is not Limited');
      if (spec.exempt != null) causes.push(...validateExempt(spec.exempt));
      break;
    case 'Limited':
      if (spec.exempt != null) causes.forbidden('spec.exempt', 'must be nil if the type is Limited');
      if (spec.limited == null) causes.required('spec.limited', 'must not be empty when type is Limited');
      else
        causes.push(
          ...validateLimited(
            spec.limited,
            writtenAsV1beta2.has(o) ? 'assuredConcurrencyShares' : 'nominalConcurrencyShares',
          ),
        );
      break;
    default:
      causes.notSupported('spec.type', spec.type ?? '', ['Exempt', 'Limited']);
  }
  const mandatory = mandatoryPriorityLevelSpec(name);
  if (mandatory) {
    if (name === 'exempt') {
      // authorized users may tune the exempt level's `spec.exempt`, nothing else
      if (!sameSpec({ ...spec, exempt: undefined }, { ...mandatory, exempt: undefined }))
        causes.invalid(
          'spec',
          spec,
          `spec of '${name}' except the 'spec.exempt' field must equal the fixed value`,
        );
    } else if (!sameSpec(spec, mandatory))
      causes.invalid('spec', spec, `spec of '${name}' must equal the fixed value`);
  }
  causes.push(...validateConditions((o as PriorityLevel).status));
  return causes;
}

function defaultStored(o: KObject): void {
  applyDefaults(o, 'nominalConcurrencyShares');
}

const limitedOf = (o: KObject) => specOf(o).limited as Limited | undefined;

export const priorityLevelConfigurationDef = defineKind({
  group: FLOWCONTROL_GROUP,
  versions: FLOWCONTROL_VERSIONS,
  kind: 'PriorityLevelConfiguration',
  namespaced: false,
  subresources: ['status'],
  schema: builtinSchema(`${FLOWCONTROL_GROUP}/v1beta3`, 'PriorityLevelConfiguration'),
  versionInfo: flowcontrolVersionInfo('PriorityLevelConfiguration', {
    toStorage: fromV1beta2,
    fromStorage: toV1beta2,
  }),
  zeroValue: () => ({ spec: { type: '' } }),
  ...specStatusHooks(defaultStored),
  prepareForStatusUpdate: keepAllButStatus,
  validate: validatePriorityLevel,
  validateUpdate: (o) => validatePriorityLevel(o),
  table: printed('priorityLevel', {
    Type: 'spec.type',
    NominalConcurrencyShares: (o) => limitedOf(o)?.nominalConcurrencyShares ?? '<none>',
    Queues: (o) => limitedOf(o)?.limitResponse?.queuing?.queues ?? '<none>',
    HandSize: (o) => limitedOf(o)?.limitResponse?.queuing?.handSize ?? '<none>',
    QueueLengthLimit: (o) => limitedOf(o)?.limitResponse?.queuing?.queueLengthLimit ?? '<none>',
  }),
  tracksGeneration: true,
  normalize: false,
});

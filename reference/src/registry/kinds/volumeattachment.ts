// VolumeAttachment (storage.orch.io/v1): a request to attach a volume to a node, and (through
// the `status` subresource) the attacher's answer. Cluster-scoped. The spec names the
// attacher (a CSI driver name), the node, and exactly one source: a persistent volume's name
// or an inline volume spec; it never changes. A create starts from an empty status
// (`attached: false`), and the main resource never writes status.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import { nameProblem } from '../validation.ts';
import { Causes, fieldErr, keepAllButStatus, keepStoredStatus, normalizeBySchema } from './common.ts';
import { csiDriverName } from './csidriver.ts';
import { defineKind, printed } from './define.ts';
import { goPtr, goStr, goStruct } from './go-syntax.ts';
import { PV_SOURCES } from './persistentvolume.ts';
import { validateAccessModes, validateVolumeMode } from './volume-common.ts';

interface InlineVolumeSpec {
  capacity?: Record<string, string>;
  accessModes?: string[];
  claimRef?: unknown;
  persistentVolumeReclaimPolicy?: string;
  storageClassName?: string;
  volumeMode?: string;
  csi?: { driver?: string; volumeHandle?: string };
  [source: string]: unknown;
}

export interface VolumeAttachmentSpec {
  attacher?: string;
  source?: { persistentVolumeName?: string; inlineVolumeSpec?: InlineVolumeSpec };
  nodeName?: string;
}

export interface VolumeAttachmentStatus {
  attached?: boolean;
  attachmentMetadata?: Record<string, string>;
  attachError?: { time?: string; message?: string };
  detachError?: { time?: string; message?: string };
}

const schema = builtinSchema('storage.orch.io/v1', 'VolumeAttachment');
const MAX_METADATA_BYTES = 256 * 1024;
const MAX_ERROR_MESSAGE = 1024;

const specOf = (o: KObject) => (o.spec ?? {}) as VolumeAttachmentSpec;
const statusOf = (o: KObject) => (o.status ?? {}) as VolumeAttachmentStatus;

function subdomain(field: string, v: string): StatusCause[] {
  const p = nameProblem(v, 'subdomain');
  return p ? [fieldErr.invalid(field, v, p)] : [];
}

/** Go's zero values for the structures the published schema calls required. */
function fillZeroValues(o: KObject): void {
  const spec = (o.spec ??= {}) as VolumeAttachmentSpec;
  spec.source ??= {};
  if (o.status !== undefined) (o.status as VolumeAttachmentStatus).attached ??= false;
}

/** An inline volume spec as 1.28 checks one: a CSI volume only, no capacity or claim, Retain if any policy. */
function validateInline(v: InlineVolumeSpec, p: string): StatusCause[] {
  const causes = new Causes();
  if (v.claimRef !== undefined && v.claimRef !== null)
    causes.forbidden(`${p}.claimRef`, 'may not be specified in the context of inline volumes');
  if (Object.keys(v.capacity ?? {}).length)
    causes.forbidden(`${p}.capacity`, 'may not be specified in the context of inline volumes');
  if (!v.csi) causes.required(`${p}.csi`, 'has to be specified in the context of inline volumes');
  causes.push(...validateAccessModes(`${p}.accessModes`, v.accessModes, ''));
  if (v.storageClassName) causes.push(...subdomain(`${p}.storageClassName`, v.storageClassName));
  causes.push(...validateVolumeMode(`${p}.volumeMode`, v.volumeMode));
  if (v.persistentVolumeReclaimPolicy && v.persistentVolumeReclaimPolicy !== 'Retain')
    causes.forbidden(
      `${p}.persistentVolumeReclaimPolicy`,
      'may only be Retain in the context of inline volumes',
    );
  const set = PV_SOURCES.filter((s) => v[s] !== undefined && v[s] !== null);
  if (set.length === 0) causes.required(p, 'must specify a volume type');
  for (const s of set.slice(1)) causes.forbidden(`${p}.${s}`, 'may not specify more than 1 volume type');
  if (v.csi) {
    if (!v.csi.driver) causes.required(`${p}.csi.driver`);
    else
      causes.push(
        ...csiDriverName(`${p}.csi.driver`, v.csi.driver).filter((c) => c.reason !== 'FieldValueRequired'),
      );
    if (!v.csi.volumeHandle) causes.required(`${p}.csi.volumeHandle`);
  }
  return causes;
}

function validateVolumeError(e: VolumeAttachmentStatus['attachError'], p: string): StatusCause[] {
  // Kubernetes checks the 1024-byte limit but names the metadata limit in its message
  return e && (e.message ?? '').length > MAX_ERROR_MESSAGE
    ? [fieldErr.tooLong(`${p}.message`, MAX_METADATA_BYTES)]
    : [];
}

/** What 1.28 checks of every VolumeAttachment, on create and update. */
function validateCommon(o: KObject): Causes {
  const spec = specOf(o);
  const causes = new Causes();
  if (!spec.attacher) causes.required('spec.attacher');
  const src = spec.source ?? {};
  const hasPV = src.persistentVolumeName !== undefined && src.persistentVolumeName !== null;
  const hasInline = src.inlineVolumeSpec !== undefined && src.inlineVolumeSpec !== null;
  const exactlyOne = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
  if (!hasPV && !hasInline) causes.required('spec.source', exactlyOne);
  else if (hasPV && hasInline) causes.forbidden('spec.source', exactlyOne);
  else if (hasPV) {
    if (!src.persistentVolumeName)
      causes.required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName');
  } else causes.push(...validateInline(src.inlineVolumeSpec!, 'spec.source.inlineVolumeSpec'));
  causes.push(...subdomain('spec.nodeName', spec.nodeName ?? ''));
  const status = statusOf(o);
  let size = 0;
  for (const [k, v] of Object.entries(status.attachmentMetadata ?? {})) size += k.length + String(v).length;
  if (size > MAX_METADATA_BYTES) causes.tooLong('status.attachmentMetadata', MAX_METADATA_BYTES);
  causes.push(...validateVolumeError(status.attachError, 'status.attachError'));
  causes.push(...validateVolumeError(status.detachError, 'status.detachError'));
  return causes;
}

/** The v1 API's tighter checks of new attachments: the attacher is a driver name, the volume name a subdomain. */
function validateCreate(o: KObject): StatusCause[] {
  const spec = specOf(o);
  const causes = validateCommon(o);
  causes.push(...csiDriverName('spec.attacher', spec.attacher));
  const pv = spec.source?.persistentVolumeName;
  if (typeof pv === 'string') causes.push(...subdomain('spec.source.persistentVolumeName', pv));
  return causes;
}

function goSpec(s: VolumeAttachmentSpec): string {
  return goStruct('storage.VolumeAttachmentSpec', [
    ['Attacher', goStr(s.attacher)],
    [
      'Source',
      goStruct('storage.VolumeAttachmentSource', [
        ['PersistentVolumeName', goPtr('string', s.source?.persistentVolumeName)],
        ['InlineVolumeSpec', goPtr('core.PersistentVolumeSpec', s.source?.inlineVolumeSpec)],
      ]),
    ],
    ['NodeName', goStr(s.nodeName)],
  ]);
}

function validateUpdate(o: KObject, old: KObject): StatusCause[] {
  const causes = validateCommon(o);
  if (!deepEqual(specOf(o), specOf(old)))
    causes.invalidShown('spec', goSpec(specOf(o)), 'field is immutable');
  return causes;
}

export const volumeAttachmentDef = defineKind({
  group: 'storage.orch.io',
  kind: 'VolumeAttachment',
  namespaced: false,
  subresources: ['status'],
  schema,
  zeroValue: () => ({ spec: { attacher: '', source: {}, nodeName: '' }, status: { attached: false } }),
  prepareForCreate(o) {
    fillZeroValues(o);
    o.status = { attached: false };
  },
  prepareForUpdate(o, old) {
    fillZeroValues(o);
    keepStoredStatus(o, old);
  },
  prepareForStatusUpdate(o, old) {
    keepAllButStatus(o, old);
    o.status ??= {};
    normalizeBySchema(o, schema, 'VolumeAttachment');
    fillZeroValues(o);
  },
  validate: validateCreate,
  validateUpdate,
  table: printed('volumeAttachment', {
    Attacher: 'spec.attacher',
    PV: 'spec.source.persistentVolumeName',
    Node: 'spec.nodeName',
    Attached: (o) => statusOf(o).attached === true,
  }),
});

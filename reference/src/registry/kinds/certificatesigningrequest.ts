// CertificateSigningRequest (certificates.orch.io/v1, cluster-scoped): a PKCS #10 request for
// a certificate from a named signer. The server fills spec.username/uid/groups/extra from
// the requester on create and keeps the whole spec as created; approval conditions
// (Approved, Denied) change only through the `approval` subresource, the certificate and the
// Failed condition only through `status`, and the certificate only once approved.
import { errors, type StatusCause } from '../../errors/status.ts';
import { arr, int, mapOf, obj, str, time } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { certificateChainProblem, certificateRequestProblem } from '../../util/csr-der.ts';
import type { RequestContext } from '../types.ts';
import { Causes, fieldErr, normalizeBySchema } from './common.ts';
import { defineKind, printed } from './define.ts';
import { base64ErrorOffset } from './secret.ts';

export const KUBE_APISERVER_CLIENT_SIGNER = 'orch.io/kube-apiserver-client';
const LEGACY_UNKNOWN_SIGNER = 'orch.io/legacy-unknown';

const KIND = { group: 'certificates.orch.io', kind: 'CertificateSigningRequest' };

export const KNOWN_USAGES = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];

const condition = obj({
  type: str(),
  status: str(),
  reason: str(),
  message: str(),
  lastUpdateTime: time(),
  lastTransitionTime: time(),
});

const schema = objectSchema({
  spec: obj({
    request: str({ format: 'byte' }),
    signerName: str(),
    expirationSeconds: int({ format: 'int32' }),
    usages: arr(str(), { 'x-orch-list-type': 'atomic' }),
    username: str(),
    uid: str(),
    groups: arr(str(), { 'x-orch-list-type': 'atomic' }),
    extra: mapOf(arr(str())),
  }),
  status: obj({
    conditions: arr(condition, { 'x-orch-list-type': 'map', 'x-orch-list-map-keys': ['type'] }),
    certificate: str({ format: 'byte' }),
  }),
});

export interface CsrCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}
export interface CsrSpec {
  request?: string;
  signerName?: string;
  expirationSeconds?: number;
  usages?: string[];
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}
export interface CsrStatus {
  conditions?: CsrCondition[];
  certificate?: string;
}

export const specOf = (o: KObject) => (o.spec ?? {}) as CsrSpec;
export const statusOf = (o: KObject) => (o.status ?? {}) as CsrStatus;
const conditionsOf = (o: KObject) => statusOf(o).conditions ?? [];
export const hasCondition = (o: KObject, type: string) => conditionsOf(o).some((c) => c.type === type);

/** A base64 field: 400 when it does not decode (as decoding the body fails); normalized. */
function checkBase64(o: Record<string, unknown> | undefined, key: string): void {
  const v = o?.[key];
  if (typeof v !== 'string') return;
  const off = base64ErrorOffset(v);
  if (off >= 0)
    throw errors.badRequest(
      `CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: illegal base64 data at input byte ${off}`,
    );
  o![key] = Buffer.from(v.replace(/[\r\n]/g, ''), 'base64').toString('base64');
}

/** The body as Go decodes it: the schema's normal forms, and a null condition an empty one (its zero value). */
function decode(o: KObject): void {
  normalizeBySchema(o, schema, 'CertificateSigningRequest');
  const st = o.status as { conditions?: unknown[] } | undefined;
  if (Array.isArray(st?.conditions)) st.conditions = st.conditions.map((c) => c ?? {});
}

const nowTime = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Conditions without times get now; a condition whose type and status were there keeps its transition time. */
function populateConditionTimestamps(o: KObject, old: KObject): void {
  const now = nowTime();
  for (const c of conditionsOf(o)) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const before = conditionsOf(old).find(
        (p) => p.type === c.type && p.status === c.status && p.lastTransitionTime,
      );
      c.lastTransitionTime = before?.lastTransitionTime ?? now;
    }
  }
}

function count(o: KObject, type: string): number {
  return conditionsOf(o).filter((c) => c.type === type).length;
}

function refuse(o: KObject, causes: StatusCause[]): void {
  if (causes.length) throw errors.invalid(KIND, o.metadata.name ?? '', causes);
}

function prepareCreate(o: KObject, ctx: RequestContext): void {
  decode(o);
  const spec = (o.spec ??= {}) as CsrSpec & Record<string, unknown>;
  checkBase64(spec, 'request');
  // the requester, as the server saw it; nothing of it comes from the body
  for (const k of ['username', 'uid', 'groups', 'extra'] as const) delete spec[k];
  spec.username = ctx.user.username;
  if (ctx.user.uid) spec.uid = ctx.user.uid;
  if (ctx.user.groups.length) spec.groups = [...ctx.user.groups];
  if (ctx.user.extra && Object.keys(ctx.user.extra).length) spec.extra = structuredClone(ctx.user.extra);
  o.status = {};
}

/** Through the resource itself neither spec nor status changes. */
function prepareUpdate(o: KObject, old: KObject): void {
  o.spec = structuredClone(old.spec);
  if (old.status === undefined) delete o.status;
  else o.status = structuredClone(old.status);
}

/** Through `status`: status only; Approved and Denied stay as they were; a certificate is set once. */
function prepareStatus(o: KObject, old: KObject): void {
  decode(o);
  const status = (o.status ?? {}) as CsrStatus & Record<string, unknown>;
  checkBase64(status, 'certificate');
  const rv = o.metadata.resourceVersion;
  for (const k of Object.keys(o)) if (k !== 'status') delete o[k];
  for (const [k, v] of Object.entries(old)) if (k !== 'status') o[k] = structuredClone(v);
  o.metadata = { ...structuredClone(old.metadata), resourceVersion: rv };
  o.status = status;
  const causes = new Causes();
  for (const type of ['Approved', 'Denied']) {
    const before = count(old, type);
    const now = count(o, type);
    if (now > before)
      causes.forbidden('status.conditions', `updates may not add a condition of type "${type}"`);
    else if (now < before)
      causes.forbidden('status.conditions', `updates may not remove a condition of type "${type}"`);
    else {
      // the instances are the stored ones
      const olds = conditionsOf(old).filter((c) => c.type === type);
      let i = 0;
      status.conditions = conditionsOf(o).map((c) => (c.type === type ? structuredClone(olds[i++]!) : c));
    }
  }
  if (count(o, 'Failed') < count(old, 'Failed'))
    causes.forbidden('status.conditions', 'updates may not remove a condition of type "Failed"');
  const was = statusOf(old).certificate;
  if (was && was !== status.certificate)
    causes.invalid('status.certificate', '[omitted]', 'updates may not modify existing certificate content');
  refuse(o, causes);
  populateConditionTimestamps(o, old);
}

/** Through `approval`: the conditions only; existing Approved, Denied and Failed conditions stay. */
function prepareApproval(o: KObject, old: KObject): void {
  decode(o);
  const conditions = statusOf(o).conditions;
  const rv = o.metadata.resourceVersion;
  for (const k of Object.keys(o)) delete o[k];
  for (const [k, v] of Object.entries(old)) o[k] = structuredClone(v);
  o.metadata.resourceVersion = rv;
  const status = (o.status ??= {}) as CsrStatus;
  if (conditions === undefined) delete status.conditions;
  else status.conditions = conditions;
  const causes = new Causes();
  for (const type of ['Approved', 'Denied', 'Failed'])
    if (count(o, type) < count(old, type))
      causes.forbidden('status.conditions', `updates may not remove a condition of type "${type}"`);
  refuse(o, causes);
  populateConditionTimestamps(o, old);
}

/** A signer name: `<DNS subdomain>/<path>`. */
function signerNameCauses(v: string): StatusCause[] {
  const field = 'spec.signerName';
  const slash = v.indexOf('/');
  if (slash <= 0 || slash === v.length - 1)
    return [
      fieldErr.invalid(
        field,
        v,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'",
      ),
    ];
  const domain = v.slice(0, slash);
  const path = v.slice(slash + 1);
  const out = new Causes();
  if (
    !domain.includes('.') ||
    !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(domain)
  )
    out.invalid(field, v, "must be a fully qualified domain and path of the form 'example.com/signer-name'");
  if (domain.length > 253) out.tooLong(field, 253);
  if (
    path.length > 253 ||
    !/^[-A-Za-z0-9_./]+$/.test(path) ||
    path.split('/').some((s) => s === '' || s === '.' || s === '..')
  )
    out.invalid(field, v, 'validating path part: must be a valid path of the form `name` or `name/name`');
  return out;
}

function validateSpec(o: KObject): StatusCause[] {
  const spec = specOf(o);
  const out = new Causes();
  if (!spec.request) out.required('spec.request');
  else {
    const problem = certificateRequestProblem(Buffer.from(spec.request, 'base64').toString('latin1'));
    if (problem) out.invalid('spec.request', '[omitted]', problem);
  }
  if (!spec.signerName) out.required('spec.signerName');
  else if (spec.signerName === LEGACY_UNKNOWN_SIGNER)
    out.invalid(
      'spec.signerName',
      spec.signerName,
      'the legacy signerName is not allowed via this API version',
    );
  else out.push(...signerNameCauses(spec.signerName));
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds < 600)
    out.invalid(
      'spec.expirationSeconds',
      spec.expirationSeconds,
      'may not specify a duration less than 600 seconds (10 minutes)',
    );
  if (!spec.usages?.length) out.required('spec.usages', 'usages must be provided');
  const seen = new Set<string>();
  (spec.usages ?? []).forEach((u, i) => {
    if (!KNOWN_USAGES.includes(u)) out.notSupported(`spec.usages[${i}]`, u, KNOWN_USAGES);
    else if (seen.has(u)) out.duplicate(`spec.usages[${i}]`, u);
    seen.add(u);
  });
  return out;
}

function validateStatus(o: KObject): StatusCause[] {
  const out = new Causes();
  const types = new Set<string>();
  conditionsOf(o).forEach((c, i) => {
    const f = `status.conditions[${i}]`;
    if (!c.type) out.required(`${f}.type`);
    else if (types.has(c.type)) out.duplicate(`${f}.type`, c.type);
    else types.add(c.type);
    if (!c.status) out.required(`${f}.status`);
    else if (['Approved', 'Denied', 'Failed'].includes(c.type ?? '')) {
      if (c.status !== 'True') out.notSupported(`${f}.status`, c.status, ['True']);
    } else if (!['False', 'True', 'Unknown'].includes(c.status))
      out.notSupported(`${f}.status`, c.status, ['False', 'True', 'Unknown']);
  });
  if (types.has('Approved') && types.has('Denied'))
    out.invalid('status.conditions', '[omitted]', 'Approved and Denied conditions are mutually exclusive');
  const cert = statusOf(o).certificate;
  if (cert) {
    const problem = certificateChainProblem(Buffer.from(cert, 'base64').toString('latin1'));
    if (problem) out.invalid('status.certificate', '<certificate data>', problem);
    else if (!types.has('Approved') || types.has('Denied'))
      out.forbidden('status.certificate', 'may only be set once the request is approved');
  }
  return out;
}

/** The Condition column: Denied, Approved or Pending, then ,Failed and ,Issued. */
function conditionCell(o: KObject): string {
  let s = hasCondition(o, 'Denied') ? 'Denied' : hasCondition(o, 'Approved') ? 'Approved' : 'Pending';
  if (hasCondition(o, 'Failed')) s += ',Failed';
  if (statusOf(o).certificate) s += ',Issued';
  return s;
}

/** A duration as kubectl prints requested durations (`10m`, `2h`, `3d`). */
function humanDuration(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  if (m < 10) return seconds % 60 === 0 ? `${m}m` : `${m}m${seconds % 60}s`;
  if (m < 3 * 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return h % 24 === 0 ? `${Math.floor(h / 24)}d` : `${Math.floor(h / 24)}d${h % 24}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (h < 24 * 365 * 8) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
}

export const certificateSigningRequestDef = defineKind({
  group: 'certificates.orch.io',
  kind: 'CertificateSigningRequest',
  namespaced: false,
  shortNames: ['csr'],
  subresources: ['approval', 'status'],
  schema,
  nameRule: 'subdomain',
  fieldLabels: { 'spec.signerName': (o) => specOf(o).signerName },
  table: printed('certificateSigningRequest', {
    SignerName: (o) => specOf(o).signerName || '<none>',
    Requestor: 'spec.username',
    RequestedDuration: (o) => {
      const s = specOf(o).expirationSeconds;
      return s === undefined ? '<none>' : humanDuration(s);
    },
    Condition: conditionCell,
  }),
  prepareForCreate: prepareCreate,
  prepareForUpdate: prepareUpdate,
  prepareForStatusUpdate: prepareStatus,
  prepareForSubresource: { approval: prepareApproval },
  validate: (o) => [...validateSpec(o), ...validateStatus(o)],
  validateUpdate: (o) => validateStatus(o),
  normalize: false,
});

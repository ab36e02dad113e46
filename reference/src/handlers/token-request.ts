// The `token` subresource of service accounts: `POST .../serviceaccounts/<name>/token` with an
// `authentication.orch.io/v1` TokenRequest answers 201 with the request, `status.token` (a
// signed service-account token) and `status.expirationTimestamp`, as Kubernetes 1.28 does:
// audiences default to the API audiences, expirationSeconds to 3600 (at least 600, at most
// 2^32), and a token bound to a Pod (running as the account) or a Secret carries its uid,
// which must match the one the request names. A request written with Kubernetes' group name
// (authentication.k8s.io/v1, as the real kubectl sends it) is answered in that name, as the
// Table form is (content/table.ts).
import type { ServiceAccountTokenIssuer } from '../authentication/service-account-issuer.ts';
import { errors, type StatusCause } from '../errors/status.ts';
import type { KObject } from '../storage/types.ts';
import { rfc3339 } from '../util/time.ts';
import { parseBody } from './decode.ts';
import type { Handler, Scope } from './scope.ts';

export const TOKEN_REQUEST_GROUP = 'authentication.orch.io';
const API_VERSION = `${TOKEN_REQUEST_GROUP}/v1`;
/** Kubernetes' name of the same version. */
const KUBERNETES_API_VERSION = 'authentication.k8s.io/v1';
const KIND = { group: TOKEN_REQUEST_GROUP, kind: 'TokenRequest' };
const MIN_EXPIRATION = 600;
const MAX_EXPIRATION = 2 ** 32 - 1;

export interface TokenRequestDeps {
  issuer: ServiceAccountTokenIssuer;
  /** Audiences of tokens whose request names none. */
  apiAudiences: readonly string[];
  now: () => number;
}

interface BoundRef {
  kind?: unknown;
  apiVersion?: unknown;
  name?: unknown;
  uid?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request's body checked: a TokenRequest object for this service account, and its spec. */
function readRequest(
  buf: Buffer,
  s: Scope,
): { value: Record<string, unknown>; spec: Record<string, unknown> } {
  const { value } = parseBody(buf, s.contentType, ['application/json', 'application/yaml']);
  if (!isObject(value)) throw errors.badRequest('the body of the request must be a JSON object');
  if (value.kind !== undefined && value.kind !== 'TokenRequest')
    throw errors.badRequest(
      `the kind in the data (${String(value.kind)}) does not match the expected kind (TokenRequest)`,
    );
  if (
    value.apiVersion !== undefined &&
    value.apiVersion !== API_VERSION &&
    value.apiVersion !== KUBERNETES_API_VERSION
  )
    throw errors.badRequest(
      `the API version in the data (${String(value.apiVersion)}) does not match the expected API version (${API_VERSION})`,
    );
  if (value.metadata !== undefined && value.metadata !== null && !isObject(value.metadata))
    throw errors.badRequest('metadata: must be an object');
  const meta = isObject(value.metadata) ? value.metadata : {};
  const spec = value.spec === undefined || value.spec === null ? {} : value.spec;
  if (!isObject(spec)) throw errors.badRequest('spec: must be an object');
  if (meta.name !== undefined && meta.name !== '' && meta.name !== s.name)
    throw errors.invalid(KIND, s.name, [
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: ${JSON.stringify(meta.name)}: must match the service account name if specified`,
      },
    ]);
  if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== s.namespace)
    throw errors.invalid(KIND, s.name, [
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.namespace',
        message: `Invalid value: ${JSON.stringify(meta.namespace)}: must match the service account namespace if specified`,
      },
    ]);
  return { value, spec };
}

/** The requested lifetime: an integer from 10 minutes to 2^32 seconds (default an hour). */
function expirationOf(spec: Record<string, unknown>): number {
  const expirationSeconds = spec.expirationSeconds ?? 3600;
  if (typeof expirationSeconds !== 'number' || !Number.isInteger(expirationSeconds))
    throw errors.badRequest('spec.expirationSeconds: must be an integer');
  const causes: StatusCause[] = [];
  if (expirationSeconds < MIN_EXPIRATION)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.expirationSeconds',
      message: `Invalid value: ${expirationSeconds}: may not specify a duration less than 10 minutes`,
    });
  if (expirationSeconds > MAX_EXPIRATION)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.expirationSeconds',
      message: `Invalid value: ${expirationSeconds}: may not specify a duration larger than 2^32 seconds`,
    });
  if (causes.length) throw errors.invalid(KIND, '', causes);
  return expirationSeconds;
}

/** What a bound object reference names: a Pod or a Secret (anything else is refused). */
function boundTarget(ref: BoundRef): { kind: string; name: string; plural: string } {
  if (!isObject(ref)) throw errors.badRequest('spec.boundObjectRef: must be an object');
  const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
  const kind = typeof ref.kind === 'string' ? ref.kind : '';
  const name = typeof ref.name === 'string' ? ref.name : '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const plural =
    group === '' && kind === 'Pod' ? 'pods' : group === '' && kind === 'Secret' ? 'secrets' : undefined;
  if (!plural) {
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    throw errors.badRequest(`cannot bind token for object of type ${group}/${version}, Kind=${kind}`);
  }
  return { kind, name, plural };
}

/** The bound object's uid, once it runs as this account (a Pod) and has the uid the reference names. */
function boundUid(s: Scope, ref: BoundRef, kind: string, name: string, bound: KObject): string {
  if (
    kind === 'Pod' &&
    (bound.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName !== s.name
  )
    throw errors.badRequest(
      `cannot bind token for serviceaccount ${JSON.stringify(s.name)} to pod running with different serviceaccount name.`,
    );
  const uid = bound.metadata.uid ?? '';
  if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== uid)
    throw errors.conflict(
      '',
      kind,
      name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  return uid;
}

export function tokenRequestHandler(deps: TokenRequestDeps): Handler {
  return async (s) => {
    const buf = await s.body();
    if (buf.length === 0) throw errors.badRequest('the body of the request was empty');
    const { value, spec } = readRequest(buf, s);
    const account = await s.store.get(s.namespace, s.name);

    let audiences = spec.audiences ?? [];
    if (!Array.isArray(audiences) || audiences.some((a) => typeof a !== 'string'))
      throw errors.badRequest('spec.audiences: must be a list of strings');
    if (audiences.length === 0) audiences = [...deps.apiAudiences];
    const expirationSeconds = expirationOf(spec);

    let pod: { name: string; uid: string } | undefined;
    let secret: { name: string; uid: string } | undefined;
    const ref = spec.boundObjectRef as BoundRef | undefined | null;
    if (ref !== undefined && ref !== null) {
      const { kind, name, plural } = boundTarget(ref);
      const bound = (await s.registry.byResource('', plural)!.store.get(s.namespace, name)) as KObject;
      const uid = boundUid(s, ref, kind, name, bound);
      if (kind === 'Pod') pod = { name, uid };
      else secret = { name, uid };
    }

    const { token, expires } = await deps.issuer.mint({
      namespace: s.namespace,
      serviceAccount: { name: account.metadata.name!, uid: account.metadata.uid ?? '' },
      audiences: audiences as string[],
      expirationSeconds,
      pod,
      secret,
    });
    const outSpec: Record<string, unknown> = { audiences, expirationSeconds };
    if (ref) outSpec.boundObjectRef = ref;
    s.reply(201, {
      kind: 'TokenRequest',
      apiVersion: value.apiVersion === KUBERNETES_API_VERSION ? KUBERNETES_API_VERSION : API_VERSION,
      metadata: { name: s.name, namespace: s.namespace, creationTimestamp: rfc3339(deps.now()) },
      spec: outSpec,
      status: { token, expirationTimestamp: rfc3339(expires) },
    });
  };
}

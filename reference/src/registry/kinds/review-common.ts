// What the review kinds share (SubjectAccessReview and its siblings, TokenReview,
// SelfSubjectReview): they are created and answered, never stored. The server's stages
// (authorization, authentication) answer them through `Reviewers`, given at wiring time.

import { errors, type StatusCause } from '../../errors/status.ts';
import { arr, bool, mapOf, obj, str } from '../../schema/dsl.ts';
import type { Schema } from '../../schema/types.ts';
import type { KObject } from '../../storage/types.ts';
import type { MaybePromise } from '../../util/maybe-async.ts';
import type { AuthorizationAttributes, ResourceDef, Strategy, UserInfo } from '../types.ts';
import { fieldErr } from './common.ts';
import { pluralOf } from './define.ts';

export interface RulesAnswer {
  resourceRules: Record<string, unknown>[];
  nonResourceRules: Record<string, unknown>[];
  incomplete: boolean;
  evaluationError?: string;
}

export interface TokenAnswer {
  user?: UserInfo;
  audiences?: string[];
  /** Why the token was refused. */
  error?: string;
}

export interface Reviewers {
  authorize(
    a: AuthorizationAttributes,
  ): MaybePromise<{ decision: 'allow' | 'deny' | 'no-opinion'; reason: string }>;
  rules(user: UserInfo, namespace: string): RulesAnswer;
  authenticateToken(token: string, audiences: string[] | undefined): Promise<TokenAnswer>;
}

export const userInfoSchema: Schema = obj({
  username: str(),
  uid: str(),
  groups: arr(str()),
  extra: mapOf(arr(str())),
});

export const extraSchema: Schema = mapOf(arr(str()));

/** The metadata a review may carry: nothing but (for the local kind) its namespace. */
export function metadataProblems(o: KObject, allowNamespace: boolean): StatusCause[] {
  const m = { ...(o.metadata ?? {}) } as Record<string, unknown>;
  if (m.creationTimestamp === null) delete m.creationTimestamp;
  if (allowNamespace) delete m.namespace;
  for (const [k, v] of Object.entries(m))
    if (v === undefined || v === '' || (typeof v === 'object' && v !== null && Object.keys(v).length === 0))
      delete m[k];
  if (Object.keys(m).length === 0) return [];
  return [
    fieldErr.invalidShown(
      'metadata',
      JSON.stringify(m),
      allowNamespace ? 'must be empty except for namespace' : 'must be empty',
    ),
  ];
}

/** A 422 naming the review kind, when there are causes. */
export function invalidIf(def: { group: string; kind: string }, causes: StatusCause[]): void {
  if (causes.length) throw errors.invalid({ group: def.group, kind: def.kind }, '', causes);
}

/** A create-only, never stored kind. */
/** A review kind: version v1 unless `versions` says otherwise, names derived from the kind. */
export function reviewKind(
  d: Pick<ResourceDef, 'group' | 'kind' | 'namespaced' | 'schema'> &
    Partial<Pick<ResourceDef, 'versions'>> & { review: NonNullable<Strategy['review']> },
): ResourceDef {
  const { review, group, versions = ['v1'], kind, namespaced, schema } = d;
  const singular = kind.toLowerCase();
  return {
    group,
    versions,
    kind,
    plural: pluralOf(singular),
    singular,
    namespaced,
    schema,
    listKind: `${d.kind}List`,
    verbs: ['create'],
    subresources: [],
    strategy: { review, tracksGeneration: false },
  };
}

// ------------------------------------------------------------------ access reviews

const resourceAttributesSchema: Schema = obj({
  namespace: str(),
  verb: str(),
  group: str(),
  version: str(),
  resource: str(),
  subresource: str(),
  name: str(),
});
const nonResourceAttributesSchema: Schema = obj({ path: str(), verb: str() });

/** spec.resourceAttributes and spec.nonResourceAttributes (every access review has them). */
export const accessSpecFields: Record<string, Schema> = {
  resourceAttributes: resourceAttributesSchema,
  nonResourceAttributes: nonResourceAttributesSchema,
};

export const accessStatusSchema: Schema = obj({
  allowed: bool(),
  denied: bool(),
  reason: str(),
  evaluationError: str(),
});

type Rec = Record<string, unknown>;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Exactly one of resourceAttributes and nonResourceAttributes (Kubernetes' wording). */
export function accessSpecProblems(spec: Rec): StatusCause[] {
  const ra = spec.resourceAttributes ?? undefined;
  const nra = spec.nonResourceAttributes ?? undefined;
  if (ra && nra)
    return [
      fieldErr.invalidShown(
        'spec.nonResourceAttributes',
        JSON.stringify(nra),
        'cannot be specified in combination with resourceAttributes',
      ),
    ];
  if (!ra && !nra)
    return [
      fieldErr.invalidShown(
        'spec.resourceAttributes',
        '"null"',
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    ];
  return [];
}

/** The question a review spec asks about a user. */
export function accessCheck(user: UserInfo, spec: Rec): AuthorizationAttributes {
  const ra = spec.resourceAttributes as Rec | undefined;
  if (ra)
    return {
      user,
      verb: text(ra.verb),
      resourceRequest: true,
      apiGroup: text(ra.group),
      apiVersion: text(ra.version),
      resource: text(ra.resource),
      subresource: text(ra.subresource),
      namespace: text(ra.namespace),
      name: text(ra.name),
      path: '',
    };
  const nra = (spec.nonResourceAttributes ?? {}) as Rec;
  return {
    user,
    verb: text(nra.verb),
    resourceRequest: false,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    path: text(nra.path),
  };
}

/** The review answered: allowed, or denied (a deny decision), with the reason when there is one. */
export async function answerAccess(
  reviewers: Reviewers,
  o: KObject,
  a: AuthorizationAttributes,
): Promise<KObject> {
  const r = await reviewers.authorize(a);
  const status: Rec = { allowed: r.decision === 'allow' };
  if (r.decision === 'deny') status.denied = true;
  if (r.reason) status.reason = r.reason;
  return { ...o, status };
}

export function specOf(o: KObject): Rec {
  return (o.spec && typeof o.spec === 'object' ? o.spec : {}) as Rec;
}

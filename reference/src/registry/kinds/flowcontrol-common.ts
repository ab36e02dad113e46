// What FlowSchema and PriorityLevelConfiguration share: their group, served at v1beta3 (preferred
// and stored) and v1beta2 (deprecated in 1.26, unavailable in 1.29), the versions' schemas as a
// 1.28 server publishes them, and the checks of their status conditions.
import type { StatusCause } from '../../errors/status.ts';
import { builtinSchema } from '../../schema/builtin.ts';
import type { KObject } from '../../storage/types.ts';
import type { VersionDescriptor } from '../types.ts';
import { Causes } from './common.ts';

export const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.orch.io';

/** Set on the configuration objects the server keeps: `"true"` lets the server rewrite their spec. */
export const AUTO_UPDATE_ANNOTATION = 'apf.orch.io/autoupdate-spec';

/** The served versions, preferred first. */
export const FLOWCONTROL_VERSIONS = ['v1beta3', 'v1beta2'];

/** A deep copy of a JSON object (conversions never share parts with their input). */
export function copyOf<T>(o: T): T {
  return structuredClone(o);
}

/**
 * The descriptors of the two versions of a kind: v1beta3 stores; v1beta2 is converted to and
 * from it by the kind's own functions (applied to copies).
 */
export function flowcontrolVersionInfo(
  kind: string,
  v1beta2: { toStorage(o: KObject): KObject; fromStorage(o: KObject): KObject },
): Record<string, VersionDescriptor> {
  return {
    v1beta3: {
      served: true,
      storage: true,
      schema: builtinSchema(`${FLOWCONTROL_GROUP}/v1beta3`, kind),
    },
    v1beta2: {
      served: true,
      storage: false,
      deprecated: true,
      deprecatedIn: '1.26',
      removedIn: '1.29',
      replacement: `${FLOWCONTROL_GROUP}/v1beta3 ${kind}`,
      schema: builtinSchema(`${FLOWCONTROL_GROUP}/v1beta2`, kind),
      toStorage: (o) => v1beta2.toStorage(copyOf(o)),
      fromStorage: (o) => v1beta2.fromStorage(copyOf(o)),
    },
  };
}

interface Condition {
  type?: string;
}

/** Conditions of a status: each with a type, no type twice. */
export function validateConditions(status: unknown): StatusCause[] {
  const conditions = (status as { conditions?: Condition[] } | undefined)?.conditions;
  if (!Array.isArray(conditions)) return [];
  const causes = new Causes();
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const type = c?.type ?? '';
    if (seen.has(type)) causes.duplicate(`status.conditions[${i}].type`, type);
    seen.add(type);
    if (!type) causes.required(`status.conditions[${i}].type`, 'must not be empty');
  });
  return causes;
}

export interface Subject {
  kind?: string;
  user?: { name?: string };
  group?: { name?: string };
  serviceAccount?: { name?: string; namespace?: string };
}

export interface ResourcePolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs?: string[];
  nonResourceURLs?: string[];
}

export interface PolicyRulesWithSubjects {
  subjects?: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface FlowSchemaSpec {
  priorityLevelConfiguration?: { name?: string };
  matchingPrecedence?: number;
  distinguisherMethod?: { type?: string };
  rules?: PolicyRulesWithSubjects[];
}

/** Two specs alike as Go's semantic equality sees them (absent and empty lists alike). */
export function sameSpec(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? v.map(canonical) : undefined;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = canonical((v as Record<string, unknown>)[k]);
      if (x !== undefined && x !== false) out[k] = x;
    }
    return out;
  }
  return v ?? undefined;
}

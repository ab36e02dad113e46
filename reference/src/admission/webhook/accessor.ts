// One webhook of a stored configuration, as admission reads it: the v1 fields with their
// defaults (the configuration kinds set them when an object is written) and an identity that
// names the configuration, the webhook and its place, unique across configurations.
import type { LabelSelectorObj } from '../../registry/kinds/common.ts';

export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port: number;
}

export interface ClientConfig {
  url?: string;
  service?: ServiceReference;
  /** base64 of a PEM bundle. */
  caBundle?: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface WebhookAccessor {
  /** `<configuration>/<webhook>/<index>`: what reinvocation and caches key on. */
  uid: string;
  configuration: string;
  name: string;
  mutating: boolean;
  rules: WebhookRule[];
  namespaceSelector: LabelSelectorObj;
  objectSelector: LabelSelectorObj;
  matchPolicy: string;
  matchConditions: MatchCondition[];
  clientConfig: ClientConfig;
  admissionReviewVersions: string[];
  sideEffects: string;
  timeoutSeconds: number;
  reinvocationPolicy: string;
  failurePolicy: string;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
const text = (v: unknown, d = ''): string => (typeof v === 'string' ? v : d);

/** The webhooks of one configuration object (defaults filled where an old object lacks them). */
export function accessorsOf(config: Rec, mutating: boolean): WebhookAccessor[] {
  const configuration = text(rec(config.metadata).name);
  const hooks = Array.isArray(config.webhooks) ? config.webhooks : [];
  return hooks.map((raw, i) => {
    const h = rec(raw);
    const cc = rec(h.clientConfig);
    const svc = cc.service === undefined ? undefined : rec(cc.service);
    const name = text(h.name);
    return {
      uid: `${configuration}/${name}/${i}`,
      configuration,
      name,
      mutating,
      rules: (Array.isArray(h.rules) ? h.rules : []).map((r) => {
        const rr = rec(r);
        return {
          operations: strs(rr.operations),
          apiGroups: strs(rr.apiGroups),
          apiVersions: strs(rr.apiVersions),
          resources: strs(rr.resources),
          scope: text(rr.scope, '*'),
        };
      }),
      namespaceSelector: rec(h.namespaceSelector) as LabelSelectorObj,
      objectSelector: rec(h.objectSelector) as LabelSelectorObj,
      matchPolicy: text(h.matchPolicy, 'Equivalent'),
      matchConditions: (Array.isArray(h.matchConditions) ? h.matchConditions : []).map((c) => ({
        name: text(rec(c).name),
        expression: text(rec(c).expression),
      })),
      clientConfig: {
        url: typeof cc.url === 'string' ? cc.url : undefined,
        service: svc && {
          namespace: text(svc.namespace),
          name: text(svc.name),
          path: typeof svc.path === 'string' ? svc.path : undefined,
          port: typeof svc.port === 'number' ? svc.port : 443,
        },
        caBundle: typeof cc.caBundle === 'string' && cc.caBundle ? cc.caBundle : undefined,
      },
      admissionReviewVersions: strs(h.admissionReviewVersions),
      sideEffects: text(h.sideEffects),
      timeoutSeconds: typeof h.timeoutSeconds === 'number' ? h.timeoutSeconds : 10,
      reinvocationPolicy: text(h.reinvocationPolicy, 'Never'),
      failurePolicy: text(h.failurePolicy, 'Fail'),
    };
  });
}

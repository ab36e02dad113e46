// A case's own admission webhooks, kept out of every other case's way: the case gets a
// namespace and a label value of its own, and every webhook it registers is scoped to them
// (its namespaceSelector and objectSelector both require the case label, added to whatever
// selector the case gives), so cases running at once never call each other's webhooks, and
// objects the case did not label are never sent to them. Registration waits until the
// server calls the new configuration (a dry-run create of a marker object answered by a
// marker webhook of the same configuration: configurations are written whole, so its other
// webhooks are active too). Closing deletes the configurations, the objects the case asked to
// track and the namespace.
import { randomBytes } from 'node:crypto';
import type { Client, Response } from '../client.ts';
import { dropNamespace } from '../fixtures.ts';
import type { WebhookServer } from './callbacks.ts';

const GROUP = 'admissionregistration.orch.io';

export type WebhookKind = 'validating' | 'mutating';

export const CONFIGURATION: Record<WebhookKind, { kind: string; path: string }> = {
  validating: {
    kind: 'ValidatingWebhookConfiguration',
    path: `/apis/${GROUP}/v1/validatingwebhookconfigurations`,
  },
  mutating: { kind: 'MutatingWebhookConfiguration', path: `/apis/${GROUP}/v1/mutatingwebhookconfigurations` },
};

/** The label key every object of a case carries (its value is the case's). */
export const CASE_LABEL = 'conformance-case';
const MARKER_LABEL = 'conformance-marker';
/** The webhook of each configuration that tells it is active (ignore its calls). */
export const MARKER_WEBHOOK = (kind: WebhookKind) => `marker-${kind}`;

type Selector = { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };

/** `sel` with a requirement added (a selector given is kept whole). */
export function requireLabel(sel: Selector | undefined, key: string, value: string): Selector {
  const s: Selector = structuredClone(sel ?? {});
  s.matchExpressions = [...(s.matchExpressions ?? []), { key, operator: 'In', values: [value] }];
  return s;
}

export interface CaseScope {
  /** The case label's value. */
  id: string;
  /** The case's namespace (labelled with the case label). */
  namespace: string;
  /** The labels every object of the case carries. */
  labels: Record<string, string>;
  /** `hook` scoped to the case (selectors require the case label). */
  scoped(hook: Record<string, unknown>): Record<string, unknown>;
  /**
   * Registers one configuration of `kind` with these webhooks (scoped here, in order), plus a
   * marker webhook on `server`, and waits until the server calls it. Returns the answer.
   * `name`: the configuration's name (default the case id, the kind and a count).
   */
  register(
    kind: WebhookKind,
    webhooks: Record<string, unknown>[],
    server: WebhookServer,
    o?: { name?: string },
  ): Promise<Response>;
  /** Deletes `path` when the case ends (objects outside the case namespace). */
  track(path: string): void;
  close(): Promise<void>;
}

/** Opens a case scope: creates its namespace (with `nsLabels` besides the case label). */
export async function openScope(client: Client, nsLabels: Record<string, string> = {}): Promise<CaseScope> {
  const id = `adm-${randomBytes(5).toString('hex')}`;
  const labels = { [CASE_LABEL]: id };
  const namespace = id;
  const r = await client.post('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace, labels: { ...nsLabels, ...labels } },
  });
  if (r.status !== 201)
    throw new Error(`setup: cannot create the case namespace ${namespace}: ${r.describe()}`);
  const configurations: string[] = [];
  const tracked: string[] = [];
  const scoped = (hook: Record<string, unknown>) => ({
    ...hook,
    namespaceSelector: requireLabel(hook.namespaceSelector as Selector | undefined, CASE_LABEL, id),
    objectSelector: requireLabel(hook.objectSelector as Selector | undefined, CASE_LABEL, id),
  });

  async function waitActive(server: WebhookServer, kind: WebhookKind): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (let i = 0; ; i++) {
      const before = server.callsTo(MARKER_WEBHOOK(kind)).length;
      const probe = await client.post(
        `/api/v1/namespaces/${namespace}/configmaps`,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `marker-${i}`, labels: { [MARKER_LABEL]: id } },
        },
        { query: { dryRun: 'All' } },
      );
      if (server.callsTo(MARKER_WEBHOOK(kind)).length > before) return;
      if (Date.now() > deadline)
        throw new Error(
          `setup: the ${CONFIGURATION[kind].kind} of the case was never called within 15 s (a dry-run create of a labelled ConfigMap answered ${probe.describe()})`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  return {
    id,
    namespace,
    labels,
    scoped,
    track: (path) => void tracked.push(path),
    async register(kind, webhooks, server, o = {}) {
      const name = o.name ?? `${id}-${kind}-${configurations.length}`;
      const marker = {
        name: `${MARKER_WEBHOOK(kind)}.hooks.conformance`,
        clientConfig: server.clientConfig(MARKER_WEBHOOK(kind)),
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        namespaceSelector: requireLabel(undefined, CASE_LABEL, id),
        objectSelector: requireLabel(undefined, MARKER_LABEL, id),
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Ignore',
        timeoutSeconds: 10,
      };
      const r = await client.post(CONFIGURATION[kind].path, {
        apiVersion: `${GROUP}/v1`,
        kind: CONFIGURATION[kind].kind,
        metadata: { name },
        webhooks: [...webhooks.map(scoped), marker],
      });
      if (r.status === 201) {
        configurations.push(`${CONFIGURATION[kind].path}/${name}`);
        await waitActive(server, kind);
      }
      return r;
    },
    async close() {
      for (const p of configurations) await client.delete(p).catch(() => undefined);
      for (const p of tracked) await client.delete(p).catch(() => undefined);
      await dropNamespace(client, namespace);
    },
  };
}

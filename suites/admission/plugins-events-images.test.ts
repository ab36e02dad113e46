// doc3 § Webhook configuration objects, plugin table rows EventRateLimit ("token buckets of type
// `Server`, `Namespace`, `User`, `SourceAndObject`, each with `qps`, `burst`, `cacheSize`; alpha;
// off by default") and ImagePolicyWebhook ("asks a backend with ImageReview; off by default", with
// its `imagePolicy` configuration block and the forwarded `*.image-policy.orch.io/*` annotations).
// EventRateLimit cases hold for any configuration with a finite burst and a qps of at least one
// token in 30 s; the 429's shape is Kubernetes 1.28's. ImagePolicyWebhook cases need a target whose
// backend is the harness's (harness/src/admission/image-policy-backend.ts: its verdict follows
// the image name, so the target's answers show what was sent, cached and retried) with the TTLs
// and backoff of IMAGE_POLICY_SETTINGS, as the embedded run starts it.
import { describe } from 'vitest';
import { deniedReason, IMAGE_POLICY_SETTINGS } from '../../harness/src/admission/image-policy-backend.ts';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { dropNamespace, uniqueName } from '../../harness/src/fixtures.ts';
import type { CaseDef } from '../../harness/src/spec.ts';
import { namespace, pluginRules, row, SECTION } from './plugin-helpers.ts';

const RATE_ROW = row(
  'EventRateLimit',
  'V',
  'Token buckets of type `Server`, `Namespace`, `User`, `SourceAndObject`, each with `qps`, `burst`, `cacheSize`; alpha; off by default',
);
const IMAGE_ROW = row('ImagePolicyWebhook', 'V', 'Asks a backend with ImageReview; off by default');
const IMAGE_CONFIG =
  'ImagePolicyWebhook configuration (`imagePolicy` block): `kubeConfigFile` (renamed `orchConfigFile` here; path to a connection file; TLS required), `allowTTL` (seconds), `denyTTL` (seconds), `retryBackoff` (milliseconds), `defaultAllow` (bool, behaviour when the backend fails)';
const IMAGE_ANNOTATIONS = 'Pod annotations matching `*.image-policy.orch.io/*` are forwarded in the review';
/** The rules (suites/rules/doc3.yaml) of the places that are not rows of the plugin table. */
const OTHER_RULES: Record<string, string[]> = {
  [IMAGE_CONFIG]: [
    'doc3/webhook-configuration-objects/imagepolicywebhook-configuration-imagepolicy-block-kubeconfigfile-renamed',
  ],
  [IMAGE_ANNOTATIONS]: ['doc3/webhook-configuration-objects/pod-annotations-matching-image-policy-orch'],
};
const def = (id: string, title: string, place: string, level: CaseDef['level']): CaseDef => ({
  id: `admission/plugins/${id}`,
  title,
  doc: 3,
  section: SECTION,
  place,
  specRules: pluginRules(place) ?? OTHER_RULES[place],
  level,
});

const MAX_EVENTS = 300;
const event = (ns: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'ConfigMap', name: 'c', namespace: ns, apiVersion: 'v1' },
  reason: 'Conformance',
  message: 'rate limit probe',
  type: 'Normal',
});

/** Writes events into `ns` until one is refused (or MAX_EVENTS pass); returns the refusal and how many were admitted. */
async function flood(c: Client, ns: string): Promise<{ refused?: Response; admitted: number }> {
  for (let i = 0; i < MAX_EVENTS; i++) {
    const r = await c.post(`/api/v1/namespaces/${ns}/events`, event(ns, `e-${i}-${uniqueName('x')}`));
    if (r.status !== 201) return { refused: r, admitted: i };
  }
  return { admitted: MAX_EVENTS };
}

describe('admission: EventRateLimit', () => {
  const needs = { admissionPlugins: ['EventRateLimit'] };

  conformance(
    def(
      'event-rate-limit/refused-when-empty',
      'Writing events faster than the buckets refill, one is eventually refused with 429 TooManyRequests and is not stored',
      RATE_ROW,
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-erl');
      try {
        const { refused, admitted } = await t.step(
          `write events into ${ns.name} until one is refused (at most ${MAX_EVENTS})`,
          () => flood(t.client, ns.name),
        );
        check(refused !== undefined, `a refusal within ${MAX_EVENTS} events`, `${admitted} events admitted`);
        checkStatus(refused!, 429, 'TooManyRequests', 'an empty bucket');
        const list = await t.client.get(`/api/v1/namespaces/${ns.name}/events`);
        check(
          list.json?.items?.length === admitted,
          `${admitted} events stored (the refused one is not)`,
          String(list.json?.items?.length),
        );
      } finally {
        await ns.remove();
      }
    },
    { needs, timeout: 120_000 },
  );

  conformance(
    def(
      'event-rate-limit/message',
      'The refusal says `Too many requests: limit reached on type <type> for key <key>`, a configured type and its key',
      RATE_ROW,
      'BEYOND',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-erl');
      try {
        const { refused } = await flood(t.client, ns.name);
        const msg = String(refused?.statusObj?.message);
        const m =
          /^Too many requests: \[?limit reached on type (Server|Namespace|User|SourceAndObject) for key (.*?)(,|\]|$)/.exec(
            msg,
          );
        check(m !== null, 'the message of Kubernetes 1.28 naming one of the four types', show(msg));
        if (m![1] === 'Namespace')
          check(m![2] === ns.name, `the Namespace key is the namespace (${ns.name})`, show(m![2]));
      } finally {
        await ns.remove();
      }
    },
    { needs, timeout: 120_000 },
  );

  conformance(
    def(
      'event-rate-limit/events-only',
      'When events are being refused, other kinds are still written in the same namespace',
      RATE_ROW,
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-erl');
      try {
        const { refused } = await flood(t.client, ns.name);
        checkStatus(refused!, 429, 'TooManyRequests', 'setup: the buckets are empty');
        const cm = await t.client.post(`/api/v1/namespaces/${ns.name}/configmaps`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'still-fine' },
        });
        checkStatus(cm, 201, undefined, 'the plugin limits events only');
      } finally {
        await ns.remove();
      }
    },
    { needs, timeout: 120_000 },
  );

  conformance(
    def(
      'event-rate-limit/refills',
      'After a refusal, the bucket refills at its qps: an event is admitted again within 30 s',
      RATE_ROW,
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-erl');
      try {
        const { refused } = await flood(t.client, ns.name);
        checkStatus(refused!, 429, 'TooManyRequests', 'setup: the buckets are empty');
        const until = Date.now() + 30_000;
        let r: Response;
        do {
          await new Promise((res) => setTimeout(res, 250));
          r = await t.client.post(
            `/api/v1/namespaces/${ns.name}/events`,
            event(ns.name, uniqueName('later')),
          );
        } while (r.status === 429 && Date.now() < until);
        checkStatus(r, 201, undefined, 'a token comes back at the configured qps');
      } finally {
        await ns.remove();
      }
    },
    { needs, timeout: 120_000 },
  );

  conformance(
    def(
      'event-rate-limit/dry-run-free',
      'A dry-run event is admitted even while events are refused, and takes no token',
      RATE_ROW,
      'BEYOND',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-erl');
      try {
        const { refused } = await flood(t.client, ns.name);
        checkStatus(refused!, 429, 'TooManyRequests', 'setup: the buckets are empty');
        const dry = await t.client.request({
          method: 'POST',
          path: `/api/v1/namespaces/${ns.name}/events`,
          query: { dryRun: 'All' },
          body: event(ns.name, 'dry'),
        });
        checkStatus(dry, 201, undefined, 'dry runs are not limited (Kubernetes 1.28)');
      } finally {
        await ns.remove();
      }
    },
    { needs, timeout: 120_000 },
  );
});

describe('admission: ImagePolicyWebhook', () => {
  const needs = { admissionPlugins: ['ImagePolicyWebhook'] };
  const pod = (name: string, image: string, annotations: Record<string, string> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, annotations },
    spec: { containers: [{ name: 'c', image }] },
  });
  /** A repository name no other case uses, with the backend's rule suffix. */
  const image = (rule: string) => `registry.example/${uniqueName('img')}-${rule}:1`;
  const create = (c: Client, ns: string, img: string, annotations?: Record<string, string>) =>
    c.post(`/api/v1/namespaces/${ns}/pods`, pod(uniqueName('p'), img, annotations));

  conformance(
    def(
      'image-policy/allow-and-deny',
      "A pod whose images the backend allows is admitted; one it denies is refused (403) with the backend's reason",
      IMAGE_ROW,
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-ipw');
      try {
        checkStatus(await create(t.client, ns.name, image('ok')), 201, undefined, 'allowed by the backend');
        const img = image('denied');
        const r = await create(t.client, ns.name, img);
        checkStatus(r, 403, 'Forbidden', 'denied by the backend');
        check(
          String(r.statusObj?.message).includes(deniedReason(img)),
          `the backend's reason ${show(deniedReason(img))} in the message`,
          show(r.statusObj?.message),
        );
        check(
          String(r.statusObj?.message).includes('image policy webhook backend denied one or more images'),
          'the wording of Kubernetes 1.28',
          show(r.statusObj?.message),
        );
      } finally {
        await ns.remove();
      }
    },
    { needs },
  );

  conformance(
    def(
      'image-policy/namespace-sent',
      "The review names the pod's namespace (the backend denies namespaces ending in -denied-ns)",
      IMAGE_ROW,
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-ipw');
      const denied = await t.client.post('/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: `${uniqueName('ipw')}-denied-ns` },
      });
      try {
        checkStatus(denied, 201, undefined, 'setup');
        checkStatus(
          await create(t.client, denied.json.metadata.name, image('ok')),
          403,
          'Forbidden',
          'the backend saw the namespace',
        );
        checkStatus(await create(t.client, ns.name, image('ok')), 201, undefined, 'another namespace');
      } finally {
        await ns.remove();
        if (denied.status === 201) await dropNamespace(t.client, denied.json.metadata.name);
      }
    },
    { needs },
  );

  conformance(
    def(
      'image-policy/annotations-forwarded',
      'Pod annotations matching *.image-policy.orch.io/* reach the backend; others do not',
      IMAGE_ANNOTATIONS,
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-ipw');
      try {
        const forwarded = await create(t.client, ns.name, image('ok'), {
          'deny.image-policy.orch.io/ticket': 'x',
        });
        checkStatus(
          forwarded,
          403,
          'Forbidden',
          'the backend denies when it sees deny.image-policy.orch.io/*',
        );
        const notForwarded = await create(t.client, ns.name, image('ok'), {
          'deny.policy.orch.io/ticket': 'x',
        });
        checkStatus(
          notForwarded,
          201,
          undefined,
          'an annotation outside *.image-policy.orch.io/* is not sent',
        );
      } finally {
        await ns.remove();
      }
    },
    { needs },
  );

  conformance(
    def(
      'image-policy/allow-ttl',
      `An allowed review is cached for allowTTL (${IMAGE_POLICY_SETTINGS.allowTTL} s here): the same images are admitted again without asking, and asked again after it`,
      IMAGE_CONFIG,
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-ipw');
      try {
        const img = image('flip');
        checkStatus(await create(t.client, ns.name, img), 201, undefined, 'first call: allowed');
        checkStatus(
          await create(t.client, ns.name, img),
          201,
          undefined,
          'within allowTTL: the cached answer (the backend would now deny)',
        );
        await new Promise((r) => setTimeout(r, IMAGE_POLICY_SETTINGS.allowTTL * 1000 + 500));
        checkStatus(
          await create(t.client, ns.name, img),
          403,
          'Forbidden',
          'after allowTTL: asked again, denied',
        );
      } finally {
        await ns.remove();
      }
    },
    { needs, timeout: 60_000, oneServer: true },
  );

  conformance(
    def(
      'image-policy/deny-ttl',
      `A denied review is cached for denyTTL (${IMAGE_POLICY_SETTINGS.denyTTL} s here), then asked again`,
      IMAGE_CONFIG,
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-ipw');
      try {
        const img = image('flop');
        checkStatus(await create(t.client, ns.name, img), 403, 'Forbidden', 'first call: denied');
        checkStatus(
          await create(t.client, ns.name, img),
          403,
          'Forbidden',
          'within denyTTL: the cached denial (the backend would now allow)',
        );
        await new Promise((r) => setTimeout(r, IMAGE_POLICY_SETTINGS.denyTTL * 1000 + 500));
        checkStatus(
          await create(t.client, ns.name, img),
          201,
          undefined,
          'after denyTTL: asked again, allowed',
        );
      } finally {
        await ns.remove();
      }
    },
    { needs, timeout: 60_000, oneServer: true },
  );

  conformance(
    def(
      'image-policy/retry-backoff',
      'A backend that fails twice and then answers is retried (with backoff from retryBackoff): the pod is admitted',
      IMAGE_CONFIG,
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-ipw');
      try {
        checkStatus(await create(t.client, ns.name, image('flaky')), 201, undefined, 'the third call allows');
      } finally {
        await ns.remove();
      }
    },
    { needs },
  );

  conformance(
    def(
      'image-policy/default-deny',
      'A backend that keeps failing refuses the pod when defaultAllow is false (403)',
      IMAGE_CONFIG,
      'MUST',
    ),
    async (t) => {
      const ns = await namespace(t.client, 'plugin-ipw');
      try {
        checkStatus(await create(t.client, ns.name, image('down')), 403, 'Forbidden', 'defaultAllow: false');
      } finally {
        await ns.remove();
      }
    },
    { needs, timeout: 60_000 },
  );
});

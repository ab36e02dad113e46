// ImagePolicyWebhook (doc3 plugin table: "asks a backend with ImageReview; off by default"; its
// configuration block `imagePolicy`: `orchConfigFile`, a connection file in kubeconfig format
// whose server must be https; `allowTTL` and `denyTTL` in seconds; `retryBackoff` in
// milliseconds; `defaultAllow`, what a failing backend means). As Kubernetes 1.28:
// - a pod's create or update is reviewed: an `imagepolicy.orch.io/v1alpha1` ImageReview with
//   every container's image, the namespace, and the pod annotations whose key matches
//   `*.image-policy.orch.io/*`;
// - `status.allowed` false refuses the pod (403, the backend's reason in the message);
// - answers are cached by review for allowTTL (allowed) or denyTTL (denied);
// - a failed call is retried with exponential backoff from retryBackoff; when it still fails,
//   defaultAllow admits the pod (annotated `alpha.image-policy.orch.io/failed-open: "true"`)
//   or refuses it.
import { resolve } from 'node:path';
import {
  loadWebhookConnection,
  postJson,
  type WebhookConnection,
} from '../../authorization/webhook-client.ts';
import { errors } from '../../errors/status.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

export const IMAGE_REVIEW_VERSION = 'imagepolicy.orch.io/v1alpha1';
export const FAILED_OPEN_ANNOTATION = 'alpha.image-policy.orch.io/failed-open';
const ANNOTATION_KEY = /^[^/]*\.image-policy\.orch\.io\/.+$/;
const BACKOFF_FACTOR = 1.5;
const ATTEMPTS = 5;
const CALL_TIMEOUT_MS = 10_000;

export interface ImagePolicyConfig {
  connection: WebhookConnection;
  allowTtlMs: number;
  denyTtlMs: number;
  retryBackoffMs: number;
  defaultAllow: boolean;
}

/** The `imagePolicy` block (connection file relative to `baseDir`); throws naming the plugin. */
export function parseImagePolicyConfig(raw: unknown, baseDir = process.cwd()): ImagePolicyConfig {
  const what = 'ImagePolicyWebhook';
  const block = (raw as { imagePolicy?: unknown } | undefined)?.imagePolicy as
    | Record<string, unknown>
    | undefined;
  if (!block || typeof block !== 'object')
    throw new Error(`${what}: the configuration needs an imagePolicy block`);
  if (typeof block.orchConfigFile !== 'string' || !block.orchConfigFile)
    throw new Error(`${what}: imagePolicy.orchConfigFile: a connection file is required`);
  const num = (k: string, dflt: number, min: number, max: number) => {
    const v = block[k];
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
      throw new Error(`${what}: imagePolicy.${k}: must be a number from ${min} to ${max}`);
    return v;
  };
  const allowTTL = num('allowTTL', 300, 0, 1800);
  const denyTTL = num('denyTTL', 30, 0, 1800);
  const retryBackoff = num('retryBackoff', 500, 1, 300_000);
  if (block.defaultAllow !== undefined && typeof block.defaultAllow !== 'boolean')
    throw new Error(`${what}: imagePolicy.defaultAllow: must be true or false`);
  const connection = loadWebhookConnection(resolve(baseDir, block.orchConfigFile));
  if (connection.url.protocol !== 'https:')
    throw new Error(`${what}: imagePolicy.orchConfigFile: the backend's server must be https`);
  return {
    connection,
    allowTtlMs: allowTTL * 1000,
    denyTtlMs: denyTTL * 1000,
    retryBackoffMs: retryBackoff,
    defaultAllow: block.defaultAllow === true,
  };
}

const isPods = (a: AdmissionAttributes) =>
  a.resource.group === '' && a.resource.resource === 'pods' && !a.subresource;

function reviewSpec(a: AdmissionAttributes): Record<string, unknown> {
  const pod = (a.object ?? {}) as any;
  const containers: { image: string }[] = [];
  for (const k of ['initContainers', 'containers', 'ephemeralContainers'])
    for (const c of Array.isArray(pod.spec?.[k]) ? pod.spec[k] : [])
      containers.push({ image: String(c?.image ?? '') });
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries((pod.metadata?.annotations ?? {}) as Record<string, string>))
    if (ANNOTATION_KEY.test(k)) annotations[k] = v;
  const spec: Record<string, unknown> = { containers, namespace: a.namespace };
  if (Object.keys(annotations).length) spec.annotations = annotations;
  return spec;
}

type Verdict = { ok: true; allowed: boolean; reason: string } | { ok: false; error: string };

export function imagePolicyWebhook(env: {
  config: unknown;
  configDir?: string;
  now?: () => number;
}): AdmissionPlugin {
  const cfg = parseImagePolicyConfig(env.config, env.configDir);
  const now = env.now ?? Date.now;
  const cache = new Map<string, { allowed: boolean; reason: string; until: number }>();

  async function call(spec: Record<string, unknown>): Promise<Verdict> {
    let delay = cfg.retryBackoffMs;
    let last = '';
    for (let i = 0; i < ATTEMPTS; i++) {
      try {
        const r = await postJson(
          cfg.connection,
          { apiVersion: IMAGE_REVIEW_VERSION, kind: 'ImageReview', spec },
          CALL_TIMEOUT_MS,
        );
        const st = (r.json as any)?.status;
        if (r.status >= 200 && r.status < 300 && st && typeof st === 'object')
          return {
            ok: true,
            allowed: st.allowed === true,
            reason: typeof st.reason === 'string' ? st.reason : '',
          };
        last = `the backend answered ${r.status}`;
        if (r.status < 500 && r.status !== 429) break;
      } catch (e) {
        last = (e as Error).message;
      }
      if (i + 1 < ATTEMPTS) {
        await new Promise((res) => setTimeout(res, delay));
        delay *= BACKOFF_FACTOR;
      }
    }
    return { ok: false, error: last };
  }

  async function verdict(a: AdmissionAttributes): Promise<Verdict> {
    const spec = reviewSpec(a);
    const key = JSON.stringify(spec);
    const hit = cache.get(key);
    if (hit && hit.until > now()) return { ok: true, allowed: hit.allowed, reason: hit.reason };
    const v = await call(spec);
    if (v.ok)
      cache.set(key, {
        allowed: v.allowed,
        reason: v.reason,
        until: now() + (v.allowed ? cfg.allowTtlMs : cfg.denyTtlMs),
      });
    return v;
  }

  const forbidden = (a: AdmissionAttributes, why: string) =>
    errors.forbidden(`pods ${JSON.stringify(a.name)} is forbidden: ${why}`, { name: a.name, kind: 'pods' });

  return {
    name: 'ImagePolicyWebhook',
    handles: (a) => isPods(a) && (a.operation === 'CREATE' || a.operation === 'UPDATE'),
    async validate(a) {
      const v = await verdict(a);
      if (!v.ok) {
        if (cfg.defaultAllow) {
          // as 1.28: the admitted pod says it was let through by the failure
          if (a.object) {
            const meta = (a.object.metadata ??= {}) as Record<string, any>;
            meta.annotations = { ...(meta.annotations ?? {}), [FAILED_OPEN_ANNOTATION]: 'true' };
          }
          a.ctx.audit?.annotate('imagepolicywebhook.image-policy.orch.io/failed-open', 'true');
          return;
        }
        throw forbidden(a, `image policy webhook backend failed: ${v.error}`);
      }
      if (!v.allowed)
        throw forbidden(a, `image policy webhook backend denied one or more images: ${v.reason}`);
    },
  };
}

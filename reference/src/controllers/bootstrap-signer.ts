// The bootstrap signer (`--controllers=*,bootstrapsigner`, off by default): the ConfigMap
// `cluster-info` in orch-public, when there is one with a `kubeconfig` key, carries one
// `jws-kubeconfig-<token-id>` key per bootstrap token that may sign (`usage-bootstrap-signing:
// "true"`, id and secret present, named after its id, not expired): the detached JWS
// (HS256, `kid` the token id, the token secret as key) of the kubeconfig; the keys of other
// tokens are removed. As Kubernetes 1.28's bootstrap signer does.
import { createHmac } from 'node:crypto';
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  hasExpired,
  isBootstrapTokenSecret,
  secretValue,
} from '../registry/bootstrap-token.ts';
import type { KObject } from '../storage/types.ts';
import { deepEqual } from '../util/object.ts';
import { ControllerClient, type ControllerEnv, isNotFound } from './client.ts';
import { follow, inform } from './informer.ts';
import type { Controller } from './types.ts';
import { WorkQueue } from './work-queue.ts';

export const CLUSTER_INFO_NAMESPACE = 'orch-public';
export const CLUSTER_INFO = 'cluster-info';
export const KUBECONFIG_KEY = 'kubeconfig';
export const SIGNATURE_PREFIX = 'jws-kubeconfig-';

const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

/** The detached JWS of `content` (`<header>..<signature>`), as Kubernetes' ComputeDetachedSignature makes it. */
export function detachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const mac = createHmac('sha256', tokenSecret)
    .update(`${header}.${b64url(content)}`)
    .digest();
  return `${header}..${b64url(mac)}`;
}

/** The id and secret of a token that may sign, or undefined (Kubernetes' validateSecretForSigning). */
function signingToken(s: KObject, now: number): { id: string; secret: string } | undefined {
  const m = /^bootstrap-token-([a-z0-9]{6})$/.exec(s.metadata.name ?? '');
  if (!m) return undefined;
  const id = secretValue(s, 'token-id');
  const secret = secretValue(s, 'token-secret');
  if (!id || id !== m[1] || !secret) return undefined;
  if (hasExpired(s, now) || secretValue(s, 'usage-bootstrap-signing') !== 'true') return undefined;
  return { id, secret };
}

export function startBootstrapSigner(env: ControllerEnv): Controller {
  const client = new ControllerClient(env, 'bootstrap-signer');
  const KEY = `${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO}`;
  const sign = async (): Promise<void> => {
    const cm = configMaps?.get(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO);
    const data = (cm?.data ?? {}) as Record<string, string>;
    if (!cm || typeof data[KUBECONFIG_KEY] !== 'string') return;
    const content = data[KUBECONFIG_KEY];
    const next: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) if (!k.startsWith(SIGNATURE_PREFIX)) next[k] = v;
    for (const s of secrets?.cache.values() ?? []) {
      if (s.metadata.namespace !== BOOTSTRAP_TOKEN_NAMESPACE || !isBootstrapTokenSecret(s)) continue;
      const t = signingToken(s, env.now());
      if (t) next[`${SIGNATURE_PREFIX}${t.id}`] = detachedSignature(content, t.id, t.secret);
    }
    if (deepEqual(next, data)) return;
    try {
      await client.update('', 'configmaps', { ...cm, data: next });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  };
  const queue = new WorkQueue('bootstrap signer', sign);
  const configMaps = follow(env.registry, '', 'configmaps', (ev) => {
    const m = ev.obj.metadata;
    if (ev.type !== 'DELETED' && m.name === CLUSTER_INFO && m.namespace === CLUSTER_INFO_NAMESPACE)
      queue.add(KEY);
  });
  const secrets = inform(env.registry, '', 'secrets', (ev) => {
    if (ev.obj.metadata.namespace === BOOTSTRAP_TOKEN_NAMESPACE && isBootstrapTokenSecret(ev.obj))
      queue.add(KEY);
  });
  return {
    stop() {
      queue.stop();
      configMaps?.stop();
      secrets?.stop();
    },
  };
}

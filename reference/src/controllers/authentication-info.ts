// The cluster's authentication information for extension API servers (Kubernetes' cluster
// authentication trust controller, post-start hook `start-cluster-authentication-info-controller`):
// the ConfigMap `kube-system/extension-apiserver-authentication` (`orch-system` in the spec's
// words) holds the client CA bundle (`client-ca-file`, from --client-ca-file) and the
// authenticating proxy's settings (`requestheader-client-ca-file`, and the header names and
// allowed names as JSON arrays, from the --requestheader-* flags), merged with what is there
// (servers sharing a store each add theirs: certificates and names are unions). Nothing is
// written while there is nothing to say; a change or deletion has it written again.
import { unlessExists } from '../errors/status.ts';
import type { Registry } from '../registry/registry.ts';
import type { RequestContext } from '../registry/types.ts';
import type { KObject } from '../storage/types.ts';
import { deepEqual } from '../util/object.ts';
import type { Controller } from './types.ts';

export const AUTHENTICATION_INFO_NAMESPACE = 'orch-system';
export const AUTHENTICATION_INFO_NAME = 'extension-apiserver-authentication';

/** What this server trusts: PEM bundles and header settings (undefined: not configured). */
export interface AuthenticationInfo {
  clientCa?: string;
  requestHeader?: {
    ca: string;
    usernameHeaders: string[];
    groupHeaders: string[];
    extraHeaderPrefixes: string[];
    allowedNames: string[];
  };
}

const system: RequestContext = {
  user: { username: 'system:apiserver', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
  fieldManager: 'orch-apiserver',
};

/** The certificates of PEM bundles, each once, in the order met. */
function pemUnion(...bundles: (string | undefined)[]): string {
  const seen = new Set<string>();
  for (const b of bundles)
    for (const m of (b ?? '').matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g))
      seen.add(m[0].replace(/\r\n/g, '\n'));
  return seen.size ? `${[...seen].join('\n')}\n` : '';
}

const list = (text: string | undefined): string[] => {
  try {
    const v = JSON.parse(text ?? '[]');
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
};
const union = (a: string[], b: string[]) => JSON.stringify([...new Set([...a, ...b])]);

/** The ConfigMap's data: what it holds merged with what this server trusts. */
export function authenticationData(
  have: Record<string, string>,
  mine: AuthenticationInfo,
): Record<string, string> {
  const data: Record<string, string> = {};
  const clientCa = pemUnion(have['client-ca-file'], mine.clientCa);
  if (clientCa) data['client-ca-file'] = clientCa;
  const rh = mine.requestHeader;
  const rhCa = pemUnion(have['requestheader-client-ca-file'], rh?.ca);
  if (!rhCa) return data;
  data['requestheader-username-headers'] = union(
    list(have['requestheader-username-headers']),
    rh?.usernameHeaders ?? [],
  );
  data['requestheader-group-headers'] = union(
    list(have['requestheader-group-headers']),
    rh?.groupHeaders ?? [],
  );
  data['requestheader-extra-headers-prefix'] = union(
    list(have['requestheader-extra-headers-prefix']),
    rh?.extraHeaderPrefixes ?? [],
  );
  data['requestheader-client-ca-file'] = rhCa;
  data['requestheader-allowed-names'] = union(
    list(have['requestheader-allowed-names']),
    rh?.allowedNames ?? [],
  );
  return data;
}

export function startAuthenticationInfo(registry: Registry, mine: AuthenticationInfo): Controller {
  const configMaps = registry.byResource('', 'configmaps')?.store;
  if (!configMaps) return { ready: Promise.resolve(), stop() {} };
  let stopped = false;
  const sync = async (): Promise<void> => {
    if (stopped) return;
    const have = configMaps.getStored(AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME)?.obj;
    const data = authenticationData((have?.data as Record<string, string> | undefined) ?? {}, mine);
    if (!have) {
      if (Object.keys(data).length === 0) return;
      const cm: KObject = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: AUTHENTICATION_INFO_NAME, namespace: AUTHENTICATION_INFO_NAMESPACE },
        data,
      };
      await unlessExists(configMaps.create(AUTHENTICATION_INFO_NAMESPACE, cm, system, 'v1'));
      return;
    }
    if (deepEqual(have.data ?? {}, data)) return;
    const next: KObject = { ...structuredClone(have), data };
    await configMaps.update(AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME, next, system, 'v1');
  };
  // a write of another server in between: the next event settles it
  const settle = () => void sync().catch(() => undefined);
  // a watch of the one object (not an informer: it would cache every ConfigMap of the cluster)
  const storage = registry.storage;
  const cancel = storage.watch(configMaps.bucket, storage.revision(), settle, {
    key: configMaps.key(AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME),
  });
  return {
    ready: sync().catch(() => undefined),
    stop() {
      stopped = true;
      cancel();
    },
  };
}

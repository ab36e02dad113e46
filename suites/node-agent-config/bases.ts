// The smallest valid document of each kind (doc3 § Node agent configuration): a row's file is
// its base with the row's fields merged in. The NodeAgentConfiguration base sets the required
// fields (enableServer included, as the "Required fields" sentence lists it) and nothing else.
export const API_VERSION = 'nodeagent.config.orch.io/v1beta1';
export const PROVIDER_API_VERSION = 'credentialprovider.nodeagent.orch.io/v1';
export const RUNTIME_ENDPOINT = 'unix:///run/containerd/containerd.sock';

export type Kind = 'NodeAgentConfiguration' | 'CredentialProviderConfig' | 'SerializedNodeConfigSource';
type Obj = Record<string, unknown>;

export function baseDocument(kind: Kind): Obj {
  switch (kind) {
    case 'NodeAgentConfiguration':
      return {
        apiVersion: API_VERSION,
        kind,
        enableServer: true,
        reservedSystemCPUs: '0-1',
        containerRuntimeEndpoint: RUNTIME_ENDPOINT,
        logging: {},
      };
    case 'CredentialProviderConfig':
      return {
        apiVersion: API_VERSION,
        kind,
        providers: [
          {
            name: 'registry-login',
            matchImages: ['*.registry.example.com'],
            defaultCacheDuration: '12h',
            apiVersion: PROVIDER_API_VERSION,
          },
        ],
      };
    case 'SerializedNodeConfigSource':
      return {
        apiVersion: API_VERSION,
        kind,
        source: { configMap: { namespace: 'orch-system', name: 'node-config' } },
      };
  }
}

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `over` merged into `base`: objects merge key by key, anything else replaces. */
export function merge(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over))
    out[k] = isObject(v) && isObject(out[k]) ? merge(out[k] as Obj, v) : v;
  return out;
}

/** `doc` without the field at a dot path. */
export function without(doc: Obj, path: string): Obj {
  const [head, ...rest] = path.split('.');
  const out: Obj = { ...doc };
  if (rest.length === 0) delete out[head!];
  else if (isObject(out[head!])) out[head!] = without(out[head!] as Obj, rest.join('.'));
  return out;
}

/** The value at a dot path (undefined when a step is missing). */
export function at(doc: unknown, path: string): unknown {
  let v: unknown = doc;
  for (const k of path.split('.')) v = isObject(v) ? v[k] : undefined;
  return v;
}

// The resources the server serves, read from its discovery documents (/api/v1, /apis and
// every version of every group), with their subresources: the real paths the generator builds.

export interface ServedResource {
  /** `/api/v1` or `/apis/<group>/<version>`. */
  prefix: string;
  /** `v1` or `<group>/<version>`. */
  groupVersion: string;
  group: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  /** Subresource names (`status`, `scale`, `log`, `exec`, `proxy`, ...). */
  subresources: string[];
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
}

async function getJson(url: string, token: string): Promise<any> {
  const r = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
  if (r.status !== 200) throw new Error(`discovery: GET ${url} answered ${r.status}`);
  return r.json();
}

/** Every served resource of every served group version, sorted (a stable order for the seed). */
export async function discoverResources(url: string, token: string): Promise<ServedResource[]> {
  const lists: { prefix: string; groupVersion: string; group: string }[] = [
    { prefix: '/api/v1', groupVersion: 'v1', group: '' },
  ];
  const groups = await getJson(`${url}/apis`, token);
  for (const g of groups.groups ?? [])
    for (const v of g.versions ?? [])
      lists.push({ prefix: `/apis/${v.groupVersion}`, groupVersion: v.groupVersion, group: g.name });
  const out: ServedResource[] = [];
  for (const l of lists) {
    const doc = await getJson(`${url}${l.prefix}`, token);
    const all = (doc.resources ?? []) as ApiResource[];
    for (const r of all) {
      if (r.name.includes('/')) continue;
      out.push({
        ...l,
        plural: r.name,
        kind: r.kind,
        namespaced: r.namespaced,
        verbs: r.verbs ?? [],
        subresources: all
          .filter((s) => s.name.startsWith(`${r.name}/`))
          .map((s) => s.name.slice(r.name.length + 1)),
      });
    }
  }
  out.sort((a, b) => `${a.prefix}/${a.plural}`.localeCompare(`${b.prefix}/${b.plural}`));
  return out;
}

// LIST in chunks: following continue tokens through a namespace of ConfigMaps.
import type { AutocannonRequest } from 'autocannon';
import { bareRoute, call, cmPath, createMany, ensureNamespace, must, type Reply, setRoutes } from './http.ts';
import { type CompareOpts, type Comparison, compare } from './measure.ts';
import { loadUrl, type ServerProc } from './process.ts';

export interface ListSetup {
  urls: string[];
  items: number;
}

const CONTINUE = /"continue":"([^"]+)"/;
const listUrl = (base: string, limit: number, cont?: string) =>
  cont ? `${base}?limit=${limit}&continue=${encodeURIComponent(cont)}` : `${base}?limit=${limit}`;

/** Follows the continue tokens of a chunked list once; returns the replies in order. */
export async function followList(
  s: ServerProc,
  ns: string,
  limit: number,
): Promise<{ url: string; reply: Reply }[]> {
  const out: { url: string; reply: Reply }[] = [];
  let cont: string | undefined;
  for (let i = 0; i < 10_000; i++) {
    const url = listUrl(cmPath(ns), limit, cont);
    const reply = await must(call(s, 'GET', url), 200);
    out.push({ url, reply });
    cont = reply.json.metadata.continue;
    if (!cont) break;
  }
  return out;
}

export async function benchList(
  orch: ServerProc,
  bare: ServerProc,
  o: CompareOpts,
  total = 500,
  limit = 100,
  name = `LIST ${total} in chunks of ${limit}`,
): Promise<Comparison & { chunks: number }> {
  const ns = 'list';
  await ensureNamespace(orch, ns);
  await createMany(orch, ns, 'l', total);
  const chain = await followList(orch, ns, limit);
  const names = chain.flatMap((c) => c.reply.json.items.map((x: any) => x.metadata.name as string));
  if (names.length !== total || new Set(names).size !== total)
    throw new Error(
      `chunked list returned ${names.length} items (${new Set(names).size} distinct), want ${total}`,
    );
  await setRoutes(
    bare,
    chain.map((c) => bareRoute(`GET ${c.url}`, c.reply)),
  );
  for (const c of chain) {
    const b = await must(call(bare, 'GET', c.url), 200);
    if (!b.body.equals(c.reply.body)) throw new Error('bare LIST bytes differ from the server');
  }
  const chunks = chain.length;
  const bytes = Math.round(chain.reduce((a, c) => a + c.reply.body.length, 0) / chunks);
  const base = cmPath(ns);
  const auth = { authorization: `Bearer ${orch.token}` };
  const requests: AutocannonRequest[] = [];
  for (let i = 0; i < chunks; i++) {
    const r: AutocannonRequest = {
      method: 'GET',
      headers: auth,
      path: listUrl(base, limit),
      onResponse: (_status, body, ctx) => {
        ctx.cont = CONTINUE.exec(body.slice(0, 4096))?.[1];
      },
    };
    if (i > 0) r.setupRequest = (req, ctx) => ({ ...req, path: listUrl(base, limit, ctx.cont as string) });
    requests.push(r);
  }
  const r = await compare(name, orch, bare, o, bytes, (s) => ({
    url: loadUrl(s),
    connections: o.connections,
    requests,
  }));
  return { ...r, chunks };
}

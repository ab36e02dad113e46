// The operations of the connect subresources (log, exec, attach, portforward, proxy), named as
// 1.28 names them.
import { subresourceVerbs } from '../../registry/subresources.ts';
import { camel } from './names.ts';
import { type Op, ok, type ResourceOps } from './op.ts';
import type { Param } from './params.ts';

/** The query options of each connect subresource, as 1.28's OpenAPI lists them. */
const CONNECT_PARAMS: Record<string, [string, Param['type']][]> = {
  log: [
    ['container', 'string'],
    ['follow', 'boolean'],
    ['insecureSkipTLSVerifyBackend', 'boolean'],
    ['limitBytes', 'integer'],
    ['pretty', 'string'],
    ['previous', 'boolean'],
    ['sinceSeconds', 'integer'],
    ['tailLines', 'integer'],
    ['timestamps', 'boolean'],
  ],
  exec: [
    ['command', 'string'],
    ['container', 'string'],
    ['stderr', 'boolean'],
    ['stdin', 'boolean'],
    ['stdout', 'boolean'],
    ['tty', 'boolean'],
  ],
  attach: [
    ['container', 'string'],
    ['stderr', 'boolean'],
    ['stdin', 'boolean'],
    ['stdout', 'boolean'],
    ['tty', 'boolean'],
  ],
  portforward: [['ports', 'integer']],
  proxy: [['path', 'string']],
};

const PROXY_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/**
 * The operations of a connect subresource, named as 1.28 names them: `connect<GV><Method><Scope><Kind><Sub>`
 * for each method it serves (the proxies: every method, also with a `{path}`), `read...Log` for logs.
 */
export function connectOps(r: ResourceOps, sub: string): Op[] {
  const path = `${r.item}/${sub}`;
  const query: Param[] = (CONNECT_PARAMS[sub] ?? []).map(([name, type]) => ({
    name,
    in: 'query',
    type,
    description: `the ${name} option of the ${sub} request`,
  }));
  const base = { tag: r.tag, doc: r.doc, gvk: r.gvk, produces: ['*/*'], responses: ok({ type: 'string' }) };
  if (sub === 'log')
    return [
      {
        ...base,
        path,
        method: 'get',
        operationId: `read${r.gv}${r.scope}${r.kind}Log`,
        description: `read log of the specified ${r.kind}`,
        produces: [
          'text/plain',
          'application/json',
          'application/yaml',
          'application/vnd.kubernetes.protobuf',
        ],
        params: [...r.itemParams, ...query],
        action: 'get',
      },
    ];
  const methods: readonly Op['method'][] =
    sub === 'proxy' ? PROXY_METHODS : subresourceVerbs(sub).map((v) => (v === 'create' ? 'post' : 'get'));
  const out: Op[] = [];
  const withPath = sub === 'proxy' ? ['', '/{path}'] : [''];
  for (const suffix of withPath)
    for (const m of methods) {
      const M = m[0]!.toUpperCase() + m.slice(1);
      out.push({
        ...base,
        path: `${path}${suffix}`,
        method: m,
        operationId: `connect${r.gv}${M}${r.scope}${r.kind}${camel(sub)}${suffix ? 'WithPath' : ''}`,
        description: `connect ${m.toUpperCase()} requests to ${sub} of ${r.kind}`,
        params: [
          ...r.itemParams,
          ...(suffix
            ? [
                {
                  name: 'path',
                  in: 'path',
                  type: 'string',
                  required: true,
                  description: 'path to the resource',
                } as Param,
              ]
            : []),
          ...query,
        ],
        action: 'connect',
      });
    }
  return out;
}

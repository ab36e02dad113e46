// `.../nodes/<[scheme:]name[:port]>/proxy/<path>`: HTTP to a node, as Kubernetes 1.28's node
// proxy does: the node's preferred address (a node without one: 1.28's error), only when it
// resolves to global unicast addresses (else 400); the agent's endpoint port and scheme from
// the node's status unless another port is named, then that port with the scheme named.
import { errors } from '../errors/status.ts';
import {
  checkProxyable,
  joinHostPort,
  joinPath,
  nodeConnection,
  splitSchemeNamePort,
} from './connect-location.ts';
import type { Handler } from './scope.ts';

export const nodeProxyHandler: Handler = async (s) => {
  const id = splitSchemeNamePort(s.name);
  if (!id) throw errors.badRequest(`invalid node request ${JSON.stringify(s.name)}`);
  const node = await nodeConnection(s, id.name);
  await checkProxyable(node.host);
  const agent = !id.port || id.port === node.port;
  const scheme = agent ? node.scheme : `${id.scheme || 'http'}:`;
  const location = new URL(
    `${scheme}//${joinHostPort(node.host, agent ? node.port : id.port)}${joinPath(s.subpath)}`,
  );
  await s.forward(location, s.query.toString());
};

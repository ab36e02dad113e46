// `GET|POST .../pods/<name>/portforward`: forwards ports of a pod, through the node agent of the
// pod's node (Kubernetes 1.28's PortForwardREST, the agent's `/portForward/<ns>/<pod>`). A pod
// on no node: a 400; a port that is not a number from 1 to 65535: a 400.
import { errors } from '../errors/status.ts';
import { getPod, joinHostPort, nodeConnection, podNode } from './connect-location.ts';
import type { Handler } from './scope.ts';

export const podPortForwardHandler: Handler = async (s) => {
  const ports = s.query.getAll('ports');
  for (const p of ports) {
    if (!/^\d+$/.test(p))
      throw errors.badRequest(
        `invalid value for ports: ${JSON.stringify(p)}: strconv.ParseInt: parsing ${JSON.stringify(p)}: invalid syntax`,
      );
    const n = Number(p);
    if (n < 1 || n > 65535)
      throw errors.badRequest(
        `invalid value for ports: ${JSON.stringify(p)}: port must be between 1 and 65535`,
      );
  }
  const pod = await getPod(s, s.name);
  const nodeName = podNode(pod);
  const node = await nodeConnection(s, nodeName);
  const params = new URLSearchParams();
  for (const p of ports) params.append('port', p);
  const location = new URL(
    `${node.scheme}//${joinHostPort(node.host, node.port)}/portForward/${encodeURIComponent(s.namespace)}/${encodeURIComponent(s.name)}`,
  );
  // Go's url.Values.Encode: keys in order
  params.sort();
  await s.forward(location, params.toString());
};

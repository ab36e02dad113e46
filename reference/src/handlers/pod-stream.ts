// What exec and attach share (1.28's streamLocation): the pod, its container, its node and
// the node agent's address; the request then goes on to the agent's `/<action>/<ns>/<pod>/<container>`
// with the stream options as the agent names them.
import { errors } from '../errors/status.ts';
import {
  boolOption,
  getPod,
  joinHostPort,
  nodeConnection,
  podNode,
  streamContainer,
} from './connect-location.ts';
import type { Scope } from './scope.ts';

export async function streamToAgent(s: Scope, action: 'exec' | 'attach'): Promise<void> {
  const q = s.query;
  const stdin = boolOption(q, 'stdin');
  const stdout = boolOption(q, 'stdout');
  const stderr = boolOption(q, 'stderr');
  const tty = boolOption(q, 'tty');
  const commands = q.getAll('command');
  const pod = await getPod(s, s.name);
  const container = streamContainer(pod, q.get('container') ?? '');
  const nodeName = podNode(pod);
  if (action === 'exec' && commands.length === 0)
    throw errors.badRequest('you must specify at least 1 command');
  const node = await nodeConnection(s, nodeName);
  const params = new URLSearchParams();
  if (stdin) params.set('input', '1');
  if (stdout) params.set('output', '1');
  if (stderr) params.set('error', '1');
  if (tty) params.set('tty', '1');
  for (const c of commands) params.append('command', c);
  const location = new URL(
    `${node.scheme}//${joinHostPort(node.host, node.port)}/${action}/${encodeURIComponent(s.namespace)}/${encodeURIComponent(s.name)}/${encodeURIComponent(container)}`,
  );
  // Go's url.Values.Encode: keys in order
  params.sort();
  await s.forward(location, params.toString());
}

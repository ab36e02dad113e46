// `GET .../pods/<name>/log`: a container's log, read from the node agent of the pod's node, as
// Kubernetes 1.28 serves it. The options are checked first (a 422 naming PodLogOptions), then
// the container (one of the pod's, or the only one); a pod on no node has no log yet: an empty
// text answer. Otherwise the request goes to the agent's `/containerLogs/<ns>/<pod>/<container>`.
import { errors, type StatusCause } from '../errors/status.ts';
import {
  boolOption,
  getPod,
  intOption,
  joinHostPort,
  logContainer,
  nodeConnection,
} from './connect-location.ts';
import type { Handler } from './scope.ts';

export const podLogHandler: Handler = async (s) => {
  const q = s.query;
  const container = q.get('container') ?? '';
  const follow = boolOption(q, 'follow');
  const previous = boolOption(q, 'previous');
  const timestamps = boolOption(q, 'timestamps');
  boolOption(q, 'insecureSkipTLSVerifyBackend');
  const tailLines = intOption(q, 'tailLines');
  const limitBytes = intOption(q, 'limitBytes');
  const sinceSeconds = intOption(q, 'sinceSeconds');
  const sinceTime = q.get('sinceTime') ?? '';
  if (sinceTime && Number.isNaN(Date.parse(sinceTime)))
    throw errors.badRequest(`invalid value for sinceTime: ${JSON.stringify(sinceTime)}`);
  // 1.28's ValidatePodLogOptions
  const causes: StatusCause[] = [];
  if (tailLines !== undefined && tailLines < 0)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'tailLines',
      message: `Invalid value: ${tailLines}: must be greater than or equal to 0`,
    });
  if (limitBytes !== undefined && limitBytes < 1)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'limitBytes',
      message: `Invalid value: ${limitBytes}: must be greater than 0`,
    });
  if (sinceSeconds !== undefined && sinceTime)
    causes.push({
      reason: 'FieldValueForbidden',
      field: '',
      message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
    });
  if (sinceSeconds !== undefined && sinceSeconds < 1)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'sinceSeconds',
      message: `Invalid value: ${sinceSeconds}: must be greater than 0`,
    });
  if (causes.length) throw errors.invalid({ group: '', kind: 'PodLogOptions' }, s.name, causes);

  const pod = await getPod(s, s.name);
  const name = logContainer(pod, container);
  const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  if (!nodeName) {
    // no node, no log yet: 1.28 answers an empty stream
    s.res.stream('text/plain').end();
    return;
  }
  const node = await nodeConnection(s, nodeName);
  const params = new URLSearchParams();
  if (follow) params.set('follow', 'true');
  if (previous) params.set('previous', 'true');
  if (timestamps) params.set('timestamps', 'true');
  if (sinceSeconds !== undefined) params.set('sinceSeconds', String(sinceSeconds));
  if (sinceTime) params.set('sinceTime', sinceTime);
  if (tailLines !== undefined) params.set('tailLines', String(tailLines));
  if (limitBytes !== undefined) params.set('limitBytes', String(limitBytes));
  const location = new URL(
    `${node.scheme}//${joinHostPort(node.host, node.port)}/containerLogs/${encodeURIComponent(s.namespace)}/${encodeURIComponent(s.name)}/${encodeURIComponent(name)}`,
  );
  // Go's url.Values.Encode: keys in order
  params.sort();
  await s.forward(location, params.toString());
};

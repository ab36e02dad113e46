// `GET|POST .../pods/<name>/exec`: runs a command in a container, through the node agent of the
// pod's node (Kubernetes 1.28's ExecREST). A pod on no node, a container that is not the pod's,
// or no command: a 400.
import { streamToAgent } from './pod-stream.ts';
import type { Handler } from './scope.ts';

export const podExecHandler: Handler = (s) => streamToAgent(s, 'exec');

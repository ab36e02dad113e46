// `GET|POST .../pods/<name>/attach`: attaches to a running container's streams, through the
// node agent of the pod's node (Kubernetes 1.28's AttachREST). A pod on no node or a container
// that is not the pod's: a 400.
import { streamToAgent } from './pod-stream.ts';
import type { Handler } from './scope.ts';

export const podAttachHandler: Handler = (s) => streamToAgent(s, 'attach');

// Where the tests that run the real kubectl find it: $KUBECTL, then kubectl 1.28 of the Google
// Cloud SDK, then `kubectl` on PATH (where .ci/run installs Debian's kubernetes-client when
// there is none). No kubectl is a failure of those tests, never a skip: a check that silently
// turns itself off checks nothing.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export const SDK_BIN = '/usr/lib/google-cloud-sdk/bin';

export function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** $KUBECTL (as given), then the Cloud SDK's kubectl 1.28, then `kubectl` on PATH. */
export function findKubectl(env: NodeJS.ProcessEnv = process.env, sdkBin = SDK_BIN): string | undefined {
  if (env.KUBECTL) return env.KUBECTL;
  const pinned = join(sdkBin, 'kubectl.1.28');
  if (executable(pinned)) return pinned;
  for (const dir of (env.PATH ?? '').split(delimiter))
    if (dir && executable(join(dir, 'kubectl'))) return join(dir, 'kubectl');
  return undefined;
}

/** Why the kubectl tests cannot run, and how to make them: undefined when `bin` is usable. */
export function kubectlMissing(
  bin: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const how =
    'install kubectl: `.ci/run` does it (Debian: `sudo apt-get install kubernetes-client`, which puts kubectl on PATH), ' +
    'or `gcloud components install kubectl`, or point $KUBECTL at a kubectl binary';
  if (!bin) return `kubectl not found ($KUBECTL, ${join(SDK_BIN, 'kubectl.1.28')}, PATH): ${how}`;
  if (!executable(bin))
    return `kubectl ${bin}${env.KUBECTL ? ' (from $KUBECTL)' : ''} is not an executable file: ${how}`;
  return undefined;
}

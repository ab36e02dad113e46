// This repository's node agent configuration validator and defaulter (scripts/node-config.ts)
// as `in-process:` commands (suites/node-agent-config/commands.ts): the runs this repository
// starts itself (embedded servers, a Kubernetes control plane) call them in the test worker
// instead of starting a process per file. The suite needs no API server, so its verdicts do
// not depend on the target; the command as a process is checked by the CLI's own tests
// (scripts/test/node-config-cli.test.ts) and the clean run of the node-config meta test.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MODULE = join(dirname(fileURLToPath(import.meta.url)), 'node-config.ts');

export function ownNodeConfigInProcess(): Record<string, string> {
  return {
    ORCH_NODE_CONFIG_VALIDATOR: `in-process:${JSON.stringify([MODULE, 'validate'])}`,
    ORCH_NODE_CONFIG_DEFAULTER: `in-process:${JSON.stringify([MODULE, 'default'])}`,
  };
}

// doc3 § Resources and their fields, NamespaceLifecycle: the three system namespaces
// (`default`, `orch-system`, `orch-public`) cannot be deleted. Kubernetes answers 403
// Forbidden; the code is not in the text.
import { describe } from 'vitest';
import { check, checkEqual, checkStatus } from '../../harness/src/assert.ts';
import type { Client } from '../../harness/src/client.ts';
import { conformance } from '../../harness/src/case.ts';
import { paths } from '../../harness/src/fixtures.ts';

const PROTECTED = ['default', 'orch-system', 'orch-public'];
const PLACE = 'NamespaceLifecycle | V | protects three system namespaces from deletion';

/**
 * The namespace is there to be protected. Its absence is a failure, not a reason to skip: a
 * server that let a system namespace be deleted once would otherwise pass ever after
 * (Kubernetes keeps default, kube-system and kube-public, and recreates them).
 */
async function present(client: Client, name: string): Promise<void> {
  const g = await client.get(paths.namespace(name));
  checkStatus(g, 200, undefined, `the system namespace ${name} exists (NamespaceLifecycle protects it)`);
}

describe('deletion: protected system namespaces', () => {
  for (const name of PROTECTED) {
    conformance(
      {
        id: `deletion/protected/${name}`,
        title: `A delete request for the namespace ${name} is refused and the namespace stays, not being deleted`,
        doc: 3,
        section: 'Resources and their fields',
        place: PLACE,
        specRules: [
          'doc3/webhook-configuration-objects/namespacelifecycle-v-blocks-creation-terminating-namespaces',
        ],
        level: 'MUST',
      },
      async ({ client }) => {
        await present(client, name);
        const r = await client.delete(paths.namespace(name));
        check(r.status >= 400 && r.status < 500, 'a 4xx refusal', r.describe());
        const g = await client.get(paths.namespace(name));
        checkStatus(g, 200, undefined, `namespace ${name} still exists`);
        checkEqual(g.json.metadata?.deletionTimestamp, undefined, `namespace ${name} is not being deleted`);
      },
    );
  }

  conformance(
    {
      id: 'deletion/protected/forbidden',
      title: 'A delete request for any of the three system namespaces answers 403 with reason Forbidden',
      doc: 3,
      section: 'Resources and their fields',
      place: `${PLACE} (status code: not shown; Kubernetes: 403 Forbidden)`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      for (const name of PROTECTED) {
        await present(client, name);
        checkStatus(await client.delete(paths.namespace(name)), 403, 'Forbidden', `DELETE namespace ${name}`);
      }
    },
  );
});

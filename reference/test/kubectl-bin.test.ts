// How the kubectl tests find kubectl (kubectl-bin.ts): $KUBECTL, the Cloud SDK's 1.28, then
// PATH (where .ci/run puts Debian's); and what they say when there is none.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findKubectl, kubectlMissing } from './kubectl-bin.ts';

const dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-bin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('finding kubectl', () => {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const onPath = join(bin, 'kubectl');
  writeFileSync(onPath, '#!/bin/sh\n');
  chmodSync(onPath, 0o755);
  const noSdk = join(dir, 'no-sdk');

  it('finds kubectl on PATH when there is no $KUBECTL and no Cloud SDK kubectl', () => {
    expect(findKubectl({ PATH: `/nonexistent:${bin}` }, noSdk)).toBe(onPath);
    expect(kubectlMissing(onPath, {})).toBeUndefined();
  });

  it('$KUBECTL wins', () => {
    expect(findKubectl({ KUBECTL: '/opt/kubectl', PATH: bin }, noSdk)).toBe('/opt/kubectl');
  });

  it('none: the reason says how to install one', () => {
    expect(findKubectl({ PATH: '/nonexistent' }, noSdk)).toBeUndefined();
    expect(kubectlMissing(undefined, {})).toMatch(
      /kubectl not found .*apt-get install kubernetes-client.*\$KUBECTL/,
    );
    expect(kubectlMissing('/nope', { KUBECTL: '/nope' })).toMatch(
      /\/nope \(from \$KUBECTL\) is not an executable file/,
    );
  });
});

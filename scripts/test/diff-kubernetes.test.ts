// `orch-conformance diff` between the reference server and a real kube-apiserver 1.28 started
// from ../shared/kubernetes-1.28/bin: the differences include the known departures of
// expectations/kubernetes-1.28.yaml it meets (a bare dryRun refused with 422), each with its
// shrunk sequence and a reproducer per side. Without the binaries the test fails (a missing
// tool is a failure, never a skip).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SHARED_ASSETS } from '../../harness/src/control-plane/assets.ts';
import { cleanupTempDirs, cli, ROOT, tempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

const EXPECTATIONS = join(ROOT, 'expectations', 'kubernetes-1.28.yaml');

describe('diff: the reference against kube-apiserver 1.28', () => {
  it('reports the known departure of the bare dryRun among its divergences, with reproducers', async () => {
    expect(existsSync(SHARED_ASSETS), `the Kubernetes 1.28 binaries are needed at ${SHARED_ASSETS}`).toBe(
      true,
    );
    const dir = tempDir('diff-kube');
    const r = await cli([
      'diff',
      '--reference',
      'memory',
      '--kubernetes-assets',
      SHARED_ASSETS,
      '--ops',
      '300',
      '--seed',
      '11',
      '--report',
      dir,
    ]);
    expect(r.code, r.out).toBe(1);
    const d = JSON.parse(readFileSync(join(dir, 'diff.json'), 'utf8'));
    const signatures: string[] = d.divergences.map((x: { signature: string }) => x.signature);
    // doc1 § Dry run: "A bare `dryRun` is also accepted"; the expectations file names
    // Kubernetes' refusal (dry-run/post/bare ...: "refuses a bare dryRun with 422")
    const cases = parseYaml(readFileSync(EXPECTATIONS, 'utf8')).cases;
    for (const id of ['dry-run/post/bare', 'dry-run/put/bare', 'dry-run/patch/bare', 'dry-run/delete/bare'])
      expect(cases[id]?.note, id).toMatch(/bare dryRun with 422/);
    const bare = d.divergences.find((x: { signature: string }) =>
      /vs 422 Invalid \(dryRun\)$/.test(x.signature),
    );
    expect(bare, signatures.join('\n')).toBeDefined();
    // shrunk to the refused request alone, or one write before it
    expect(bare.operations.length).toBeLessThanOrEqual(2);
    expect(bare.operations[bare.index].dryRun).toBe('bare');
    // and named as the known departure of the verb that met it
    expect(bare.known.map((k: { id: string }) => k.id)).toEqual([
      expect.stringMatching(/^dry-run\/(post|put|patch|delete)\/bare$/),
    ]);
    expect(r.out).toMatch(/known departure dry-run\/(post|put|patch|delete)\/bare/);
    for (const f of bare.reproducers) {
      const script = readFileSync(join(dir, f), 'utf8');
      expect(script).toMatch(/[?&]dryRun=(&|')/);
    }
    const a = readFileSync(join(dir, bare.reproducers[0]), 'utf8');
    const b = readFileSync(join(dir, bare.reproducers[1]), 'utf8');
    // each side's requests in its own words
    expect(a).toContain('apiextensions.orch.io');
    expect(b).toContain('apiextensions.k8s.io');
  }, 300_000);
});

// scripts/embedded-done.ts: a project's embedded servers close once, when its last test file has
// ended, and not in watch mode (a file may run again).
import { afterEach, describe, expect, it } from 'vitest';
import type { TestModule, TestSpecification, Vitest } from 'vitest/node';
import { CloseServersWhenDone, projectClosers } from '../embedded-done.ts';

const spec = (project: string) => ({ project: { name: project } }) as unknown as TestSpecification;
const mod = (project: string) => ({ project: { name: project } }) as unknown as TestModule;
const vitest = (watch: boolean) => ({ config: { watch } }) as unknown as Vitest;

afterEach(() => {
  projectClosers().delete('etcd-test-project');
  projectClosers().delete('other-test-project');
});

/** A reporter over two files of `etcd-test-project` and one of `other-test-project`, and how often each closed. */
function setup(watch: boolean) {
  const closed = { etcd: 0, other: 0 };
  projectClosers().set('etcd-test-project', async () => void closed.etcd++);
  projectClosers().set('other-test-project', async () => void closed.other++);
  const r = new CloseServersWhenDone();
  r.onInit(vitest(watch));
  r.onTestRunStart([spec('etcd-test-project'), spec('other-test-project'), spec('etcd-test-project')]);
  return { r, closed };
}

describe('CloseServersWhenDone', () => {
  it("closes a project's servers once its last file has ended, and only then", async () => {
    const { r, closed } = setup(false);
    await r.onTestModuleEnd(mod('etcd-test-project'));
    expect(closed).toEqual({ etcd: 0, other: 0 });
    await r.onTestModuleEnd(mod('other-test-project'));
    expect(closed).toEqual({ etcd: 0, other: 1 });
    await r.onTestModuleEnd(mod('etcd-test-project'));
    expect(closed).toEqual({ etcd: 1, other: 1 });
    expect(projectClosers().has('etcd-test-project')).toBe(false);
  });

  it('closes nothing in watch mode', async () => {
    const { r, closed } = setup(true);
    for (const p of ['etcd-test-project', 'other-test-project', 'etcd-test-project'])
      await r.onTestModuleEnd(mod(p));
    expect(closed).toEqual({ etcd: 0, other: 0 });
  });
});

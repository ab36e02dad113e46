// What the built-in plugin cases share: their spec place (doc3's plugin table, under § Webhook
// configuration objects), namespaces of their own made with the client of the target the case
// was routed to (the file's namespace fixture is the main target's), and pod and toleration
// builders.
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import type { CaseContext } from '../../harness/src/case.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { missingDefaultServiceAccount } from '../../harness/src/controllers.ts';
import { dropNamespace, uniqueName } from '../../harness/src/fixtures.ts';
import type { CaseDef } from '../../harness/src/spec.ts';
import { pluginRules } from './plugin-helpers.ts';

export const SECTION = 'Webhook configuration objects';

/** A case of a plugin-table row: `place` is the row (or the 1.28 behaviour beyond it). */
export function pluginCase(id: string, title: string, place: string, level: CaseDef['level']): CaseDef {
  return {
    id: `admission/plugins/${id}`,
    title,
    doc: 3,
    section: SECTION,
    place,
    specRules: pluginRules(place),
    level,
  };
}

/** Runs `fn` in a fresh namespace (with these annotations) of the case's target; deletes it after. */
export async function inNamespace<T>(
  t: CaseContext,
  prefix: string,
  fn: (ns: string) => Promise<T>,
  annotations?: Record<string, string>,
): Promise<T> {
  const name = uniqueName(prefix);
  const r = await t.step(
    `create namespace ${name}${annotations ? ` annotated ${show(annotations)}` : ''}`,
    () =>
      t.client.post('/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, ...(annotations ? { annotations } : {}) },
      }),
  );
  checkStatus(r, 201, undefined, `setup: namespace ${name}`);
  try {
    return await fn(name);
  } finally {
    await dropNamespace(t.client, name);
  }
}

export const podsPath = (ns: string) => `/api/v1/namespaces/${ns}/pods`;

export function pod(
  name: string,
  spec: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...metadata },
    spec: { containers: [{ name: 'c', image: 'registry.example/app:1.0' }], ...spec },
  };
}

/**
 * Creates a pod. In a namespace made a moment ago the `default` ServiceAccount may not exist
 * yet (a live cluster's service-account controller makes it soon after the namespace), so a
 * refusal naming it is tried again for up to 20 s; a target that never makes it still fails,
 * with the hint of harness/src/controllers.ts.
 */
export async function createPod(
  t: CaseContext,
  ns: string,
  body: ReturnType<typeof pod>,
  what: string,
): Promise<Response> {
  return t.step(`create pod ${body.metadata.name} (${what})`, async () => {
    const until = Date.now() + 20_000;
    for (;;) {
      const r = await t.client.post(podsPath(ns), body);
      if (r.status !== 403 || !missingDefaultServiceAccount(r.text) || Date.now() > until) return r;
      await new Promise((res) => setTimeout(res, 200));
    }
  });
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

const norm = (t: Toleration) => ({
  key: t.key ?? '',
  operator: t.operator || 'Equal',
  value: t.value ?? '',
  effect: t.effect ?? '',
  tolerationSeconds: t.tolerationSeconds,
});

export const sameToleration = (x: Toleration, y: Toleration) => show(norm(x)) === show(norm(y));

/** The pod's tolerations (an empty list when none). */
export const tolerationsOf = (r: Response): Toleration[] =>
  Array.isArray(r.json?.spec?.tolerations) ? r.json.spec.tolerations : [];

export function checkHasToleration(r: Response, want: Toleration, why: string): void {
  const have = tolerationsOf(r);
  check(
    have.some((t) => sameToleration(t, want)),
    `a toleration ${show(want)}`,
    `tolerations ${show(have)}`,
    why,
  );
}

export function checkLacksToleration(r: Response, unwanted: Toleration, why: string): void {
  const have = tolerationsOf(r);
  check(
    !have.some((t) => sameToleration(t, unwanted)),
    `no toleration ${show(unwanted)}`,
    `tolerations ${show(have)}`,
    why,
  );
}

/** A refusal: any 4xx (`strict`: 403 Forbidden with this message), and nothing stored under `readBack`. */
export async function checkRefused(
  client: Client,
  r: Response,
  readBack: string,
  why: string,
  strict?: { code: number; reason: string; message?: string },
): Promise<void> {
  if (strict) {
    checkStatus(r, strict.code, strict.reason, why);
    if (strict.message !== undefined)
      check(
        r.statusObj?.message === strict.message,
        `the message ${show(strict.message)}`,
        show(r.statusObj?.message),
        why,
      );
  } else check(r.status >= 400 && r.status < 500, 'a 4xx refusal', r.describe(), why);
  const g = await client.get(readBack);
  checkStatus(g, 404, undefined, `${why} (nothing is stored)`);
}

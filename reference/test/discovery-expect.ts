// The check of a served discovery entry against the one a Kubernetes 1.28 server lists
// (discovery.json): kind, scope, singular name, verbs (in any order), short names, categories.
import { expect } from 'vitest';

export function expectResourceAsFact(got: any, want: any): void {
  expect(got.kind).toBe(want.kind);
  expect(got.namespaced).toBe(want.namespaced);
  expect(got.singularName).toBe(want.singularName);
  expect([...got.verbs].sort()).toEqual([...want.verbs].sort());
  expect(got.shortNames).toEqual(want.shortNames);
  expect(got.categories).toEqual(want.categories);
}

// The audit annotations of a request to a deprecated version (doc2 § Versioning, as Kubernetes
// 1.28 adds them): `orch.io/deprecated: "true"` and, when the release that removes the version
// is known, `orch.io/removed-release: "<major>.<minor>"`.
import type { VersionDescriptor } from '../registry/types.ts';

export const DEPRECATED_ANNOTATION = 'orch.io/deprecated';
export const REMOVED_RELEASE_ANNOTATION = 'orch.io/removed-release';

export function annotateDeprecation(
  audit: { annotate(key: string, value: string): void } | undefined,
  version: VersionDescriptor | undefined,
): void {
  if (!audit || !version?.deprecated) return;
  audit.annotate(DEPRECATED_ANNOTATION, 'true');
  if (version.removedIn) audit.annotate(REMOVED_RELEASE_ANNOTATION, version.removedIn);
}

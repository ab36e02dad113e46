// The words this build of the reference speaks. The sources say `orch`; the Kubernetes
// dialect's build (reference/src/server/dialect-build.ts) replaces this module with one that
// says `kubernetes`, and maps the sources' literals through ./words.ts.

export type DialectName = 'orch' | 'kubernetes';

export const DIALECT: DialectName = 'orch';

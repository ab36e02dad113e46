// The reader of certificate subject names (x509-subject.ts, with @peculiar/x509), loaded at
// the first client certificate a method looks at rather than when the server starts: the
// library takes a few hundred milliseconds to load. Once loaded it is at hand synchronously.
import type { Subject } from './x509-subject.ts';

type Reader = (der: Buffer) => Subject;

let loading: Promise<Reader> | undefined;
let loaded: Reader | undefined;

/** The reader, loading it the first time. */
export function subjectReader(): Promise<Reader> {
  loading ??= import('./x509-subject.ts').then((m) => (loaded = m.subjectOf));
  return loading;
}

/** The reader when it is loaded already, else undefined (then: `await subjectReader()`). */
export function subjectReaderLoaded(): Reader | undefined {
  return loaded;
}

// A value that may come now or later. Pipeline stages (authentication, authorization) answer
// most requests from memory; awaiting a value that is already there still costs a turn of the
// microtask queue per stage, so their contract lets them answer synchronously and callers
// await only when a stage actually returned a promise.
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

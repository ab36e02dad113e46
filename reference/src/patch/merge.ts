// JSON Merge Patch (RFC 7386, section 2). Written here rather than taken from the
// json-merge-patch package, which stops at the first `constructor` or `prototype` key (a
// valid label key) and calls `hasOwnProperty` on the target (an object may have a key of
// that name). A `__proto__` member is skipped: it is never a field, and assigning it would
// change an object's prototype. Neither argument is changed, and the result shares nothing
// with them.

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return merge(structuredClone(target), patch);
}

/** RFC 7386 MergePatch(Target, Patch); changes `target` (a private copy) in place. */
function merge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isObject(target) ? target : {};
  for (const [name, value] of Object.entries(patch)) {
    if (name === '__proto__') continue;
    if (value === null) delete result[name];
    else result[name] = merge(Object.hasOwn(result, name) ? result[name] : undefined, value);
  }
  return result;
}

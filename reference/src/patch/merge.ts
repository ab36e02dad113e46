// JSON Merge Patch (RFC 7386), from the json-merge-patch package.
import mergePatch from 'json-merge-patch';

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return mergePatch.apply(structuredClone(target), patch);
}

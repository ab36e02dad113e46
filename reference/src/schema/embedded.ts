// Embedded resources in custom resources (`x-orch-embedded-resource`): apiVersion, kind and
// the metadata checked as Kubernetes checks them.
import type { StatusCause } from '../errors/status.ts';
import { validLabelKey, validLabelValue } from '../selectors/labels.ts';
import { invalid, required } from './value-causes.ts';

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function parseGroupVersionProblem(gv: string): string | undefined {
  const parts = gv.split('/');
  if (parts.length > 2) return `unexpected GroupVersion string: ${gv}`;
  return undefined;
}

/** An `x-orch-embedded-resource` object: apiVersion and kind required, metadata valid ObjectMeta. */
export function validateEmbedded(x: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const child = (k: string) => (path ? `${path}.${k}` : k);
  if (!Object.hasOwn(x, 'apiVersion')) out.push(required(child('apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(x, 'kind')) out.push(required(child('kind'), 'must not be empty'));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      if (typeof v !== 'string') out.push(invalid(child(k), v, 'must be a string'));
      else if (!v) out.push(invalid(child(k), v, 'must not be empty'));
      else {
        const p = parseGroupVersionProblem(v);
        if (p) out.push(invalid(child(k), v, p));
      }
    } else if (k === 'kind') {
      if (typeof v !== 'string') out.push(invalid(child(k), v, 'must be a string'));
      else if (!v) out.push(invalid(child(k), v, 'must not be empty'));
      else {
        const lower = v.toLowerCase();
        const problems: string[] = [];
        if (lower.length > 63) problems.push('must be no more than 63 characters');
        if (!DNS1035.test(lower)) problems.push(DNS1035_MSG);
        if (problems.length)
          out.push(
            invalid(child(k), v, `may have mixed case, but should otherwise match: ${problems.join(',')}`),
          );
      }
    } else if (k === 'metadata' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      out.push(...validateEmbeddedMeta(v as Record<string, unknown>, child('metadata')));
    }
  }
  return out;
}

function validateEmbeddedMeta(m: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const name = m.name;
  if (typeof name === 'string' && name) {
    if (name === '.' || name === '..') out.push(invalid(`${path}.name`, name, `may not be '${name}'`));
    else if (name.includes('/')) out.push(invalid(`${path}.name`, name, "may not contain '/'"));
    else if (name.includes('%')) out.push(invalid(`${path}.name`, name, "may not contain '%'"));
  }
  const labels = m.labels;
  if (labels && typeof labels === 'object') {
    for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
      const kp = validLabelKey(k);
      if (kp) out.push(invalid(`${path}.labels`, k, kp));
      const vp = typeof v === 'string' ? validLabelValue(v) : 'must be a string';
      if (vp) out.push(invalid(`${path}.labels`, v, vp));
    }
  }
  const ann = m.annotations;
  if (ann && typeof ann === 'object') {
    for (const k of Object.keys(ann as Record<string, unknown>)) {
      const kp = validLabelKey(k);
      if (kp) out.push(invalid(`${path}.annotations`, k, kp));
    }
  }
  return out;
}

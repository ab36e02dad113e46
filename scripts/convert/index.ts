// Manifests rewritten from retired API versions to their replacements (doc2, "Retired API
// versions and replacements"), applying the field changes of each row: one rule per family of
// kinds (rules/). What a rule cannot carry over, or carries over with a change of behaviour, is
// reported as a note on the document.
import { parseAllDocuments, stringify } from 'yaml';
import { dialect, type DialectName } from '../../harness/src/dialect.ts';
import { appsRules } from './rules/apps.ts';
import { authorizationRules } from './rules/authorization.ts';
import { autoscalingRules } from './rules/autoscaling.ts';
import { certificateRules } from './rules/certificates.ts';
import { crdRules } from './rules/crd.ts';
import { endpointSliceRules } from './rules/endpointslice.ts';
import { eventRules } from './rules/events.ts';
import { flowcontrolRules } from './rules/flowcontrol.ts';
import { ingressRules } from './rules/ingress.ts';
import { policyRules } from './rules/policy.ts';
import { sameShapeRules } from './rules/same-shape.ts';
import { webhookRules } from './rules/webhooks.ts';
import type { Obj, Rule } from './types.ts';

export const RULES: Rule[] = [
  ...sameShapeRules,
  ...flowcontrolRules,
  ...autoscalingRules,
  ...appsRules,
  ...ingressRules,
  ...webhookRules,
  ...crdRules,
  ...eventRules,
  ...endpointSliceRules,
  ...certificateRules,
  ...authorizationRules,
  ...policyRules,
];

export function ruleFor(apiVersion: string, kind: string): Rule | undefined {
  return RULES.find((r) => r.kinds.includes(kind) && r.from.includes(apiVersion));
}

export interface DocumentReport {
  /** 1-based position of the document in the input (and of the item in a List: `3.2`). */
  at: string;
  kind: string;
  name: string;
  from: string;
  /** The apiVersion written (the input's when nothing was converted). */
  to: string;
  notes: string[];
  /** Nothing was written for it (no replacement API, or not convertible to the output version). */
  dropped?: boolean;
}

export interface ConvertOptions {
  /** Convert only to this group/version; objects whose replacement is elsewhere are left as they are. */
  outputVersion?: string;
  /** The words of the file (default orch; `kubernetes` for manifests written for a Kubernetes cluster). */
  dialect?: DialectName;
  format?: 'yaml' | 'json';
}

export interface ConvertResult {
  text: string;
  reports: DocumentReport[];
  /** Input that is not YAML: the parser's messages. */
  errors: string[];
}

function convertObject(o: Obj, at: string, opts: ConvertOptions, reports: DocumentReport[]): Obj | undefined {
  const d = dialect(opts.dialect ?? 'orch');
  if (o?.kind === 'List' && Array.isArray(o.items)) {
    const items: Obj[] = [];
    o.items.forEach((item: Obj, i: number) => {
      const c = convertObject(item, `${at}.${i + 1}`, opts, reports);
      if (c) items.push(c);
    });
    return { ...o, items };
  }
  if (!o || typeof o !== 'object' || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') {
    reports.push({
      at,
      kind: '',
      name: '',
      from: '',
      to: '',
      notes: ['not an object with apiVersion and kind: left as it is'],
    });
    return o;
  }
  const from = d.back(o.apiVersion);
  const rule = ruleFor(from, o.kind);
  const report: DocumentReport = {
    at,
    kind: o.kind,
    name: o.metadata?.name ?? '',
    from: o.apiVersion,
    to: o.apiVersion,
    notes: [],
  };
  if (!rule) return o;
  reports.push(report);
  if (opts.outputVersion && rule.to && d.back(opts.outputVersion) !== rule.to) {
    report.notes.push(
      `not converted: ${from} ${o.kind} is replaced by ${d.w(rule.to)}, not ${opts.outputVersion}`,
    );
    return o;
  }
  const copy = structuredClone(o);
  const out = rule.convert(copy, from, report.notes, d.w);
  if (!out) {
    report.dropped = true;
    report.to = '';
    return undefined;
  }
  out.apiVersion = d.w(rule.to);
  report.to = out.apiVersion;
  return out;
}

export function convertManifests(text: string, opts: ConvertOptions = {}): ConvertResult {
  const reports: DocumentReport[] = [];
  const errors: string[] = [];
  const out: unknown[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    if (doc.errors.length) {
      errors.push(...doc.errors.map((e) => `document ${i + 1}: ${e.message}`));
      return;
    }
    const value = doc.toJS();
    if (value === null || value === undefined) return;
    const c = convertObject(value, String(i + 1), opts, reports);
    if (c !== undefined) out.push(c);
  });
  const text2 =
    opts.format === 'json'
      ? `${JSON.stringify(out.length === 1 ? out[0] : { apiVersion: 'v1', kind: 'List', items: out }, null, 2)}\n`
      : out.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
  return { text: text2, reports, errors };
}

// The rules of the three spec documents, one per normative sentence and per table row, each
// with a stable id, so a case names the rules it checks and the matrix counts rules, not only
// sections. `extractRules` reads them from the documents (scripts/rules.ts writes them to
// suites/rules/doc<n>.yaml, where a rule deliberately left without a case gets its `why`);
// `readRules` loads the checked-in files, validated against suites/rules/rules.schema.json.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Level } from '../harness/src/spec.ts';
import { loadTableFile } from '../harness/src/yaml-tables.ts';
import { SPEC_FILES, specDir } from './spec-sections.ts';

export interface Rule {
  /** `doc<n>/<section-slug>/<text-slug>`: built from the section and the text, not a position. */
  id: string;
  doc: 1 | 2 | 3;
  /** The heading (##, ### or ####) the rule is written under, as written. */
  section: string;
  /** The sentence, or the table row with its cells joined by ` | `, as written. */
  text: string;
  level: Exclude<Level, 'BEYOND'>;
  /** Why no case checks the rule (only for rules left without one on purpose). */
  why?: string;
}

export const RULES_DIR = (root: string) => join(root, 'suites', 'rules');
export const rulesFile = (root: string, doc: 1 | 2 | 3) => join(RULES_DIR(root), `doc${doc}.yaml`);

/** Words left out of a slug: they make ids long without telling rules apart. */
const STOP = new Set([
  'a',
  'an',
  'the',
  'of',
  'is',
  'are',
  'and',
  'or',
  'to',
  'in',
  'for',
  'with',
  'on',
  'by',
  'its',
  'it',
  'be',
  'as',
  'at',
  'that',
  'this',
  'from',
]);

export function slug(text: string, words = 6): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim()
      .split(' ')
      .filter((w) => w && !STOP.has(w))
      .slice(0, words)
      .join('-') || 'x'
  );
}

/**
 * Text that states no rule: a sentence that only says the document leaves something out, or
 * a short one that introduces the table or list after it ("Common object metadata:"; a long
 * introduction such as the one of the impersonation headers states rules of its own).
 */
const NO_RULE = [/^[^.]*:\s*not shown\.?$/i, /^.{0,85}:$/];

/** The level a sentence states: its RFC 2119 word, MUST for a plain statement of behaviour. */
export function levelOf(text: string): Rule['level'] {
  const t = text.toLowerCase();
  if (/\b(must|required|cannot|never)\b/.test(t)) return 'MUST';
  if (/\bshould\b/.test(t)) return 'SHOULD';
  if (/\bmay\b/.test(t)) return 'MAY';
  return 'MUST';
}

/** Splits prose into sentences (a full stop followed by a capital, a backtick or a quote). */
export function sentences(prose: string): string[] {
  return prose
    .split(/(?<=[.!?])\s+(?=[A-Z`"(])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

/** The rules of one document's text, in document order. */
export function extractFromText(doc: 1 | 2 | 3, markdown: string): Rule[] {
  const out: Rule[] = [];
  let section: string | undefined;
  const seen = new Map<string, number>();
  const add = (text: string) => {
    if (!section || NO_RULE.some((re) => re.test(text))) return;
    const base = `doc${doc}/${slug(section, 5)}/${slug(text)}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    out.push({ id: n === 1 ? base : `${base}.${n}`, doc, section, text, level: levelOf(text) });
  };
  const lines = markdown.split('\n');
  let para: string[] = [];
  const flush = () => {
    if (para.length) for (const s of sentences(para.join(' '))) add(s);
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = /^(#{1,6})\s+(.+?)\s*$/.exec(line);
    if (h) {
      flush();
      section = h[1]!.length >= 2 ? h[2]! : undefined;
      continue;
    }
    if (/^\s*\|/.test(line)) {
      flush();
      // a header row, then the separator row, then one rule per body row
      const next = lines[i + 1] ?? '';
      if (/^\s*\|[\s:|-]+\|\s*$/.test(next)) {
        i++;
        continue;
      }
      add(cells(line).join(' | '));
      continue;
    }
    const item = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    if (item) {
      flush();
      para = [item[1]!];
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    para.push(line.trim());
  }
  flush();
  return out;
}

/** The rules of the three documents as the spec directory has them now. */
export function extractRules(root: string): Rule[] {
  return ([1, 2, 3] as const).flatMap((doc) =>
    extractFromText(doc, readFileSync(join(specDir(root), SPEC_FILES[doc]), 'utf8')),
  );
}

/** The checked-in rules (suites/rules/doc<n>.yaml), each file validated against the schema. */
export function readRules(root: string): Rule[] {
  const schema = join(RULES_DIR(root), 'rules.schema.json');
  return ([1, 2, 3] as const).flatMap((doc) => {
    const file = rulesFile(root, doc);
    if (!existsSync(file)) return [];
    const { doc: data } = loadTableFile<{ rules: Omit<Rule, 'doc'>[] }>(file, schema);
    return data.rules.map((r) => ({ ...r, doc }));
  });
}

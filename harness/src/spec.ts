// How a case names its spec place: document, section heading, the table row or sentence it
// checks, and its level (RFC 2119 word, or "beyond the text" where the spec says "not shown"
// and the case follows Kubernetes).

export type Level = 'MUST' | 'SHOULD' | 'MAY' | 'BEYOND';

export interface SpecPlace {
  /** 1, 2 or 3: doc1-resource-api, doc2-apply-cel-deprecation, doc3-auth-admission-health-nodeagent. */
  doc: 1 | 2 | 3;
  /** The section heading as written in the document (the deepest heading that holds the text). */
  section: string;
  /** The table row, cell or sentence the case checks, quoted or closely paraphrased. */
  place: string;
  level: Level;
}

export interface CaseDef extends SpecPlace {
  /** Hierarchical id: `<area>/<topic>/<n>` (e.g. `watch/rv/start-at-exact`). */
  id: string;
  /** A sentence that says the behaviour. */
  title: string;
  /**
   * The ids of the rules the case checks (suites/rules/doc<n>.yaml: a sentence or table row of
   * the documents each), so the matrix shows which rules have no case.
   */
  specRules?: string[];
}

export const DOCS: Record<1 | 2 | 3, string> = {
  1: 'doc1-resource-api',
  2: 'doc2-apply-cel-deprecation',
  3: 'doc3-auth-admission-health-nodeagent',
};

export function describePlace(p: SpecPlace): string {
  const level = p.level === 'BEYOND' ? 'beyond the text (follows Kubernetes)' : p.level;
  return `doc${p.doc} § ${p.section} — "${p.place}" [${level}]`;
}

/** What a table row of a suite declares about itself. */
export interface RowPlace {
  id: string;
  title: string;
  place: string;
  specRules?: string[];
  level: Level;
  section?: string;
}

/**
 * The case of a table row: its own id, title, place, rules and level, in `doc`, under its own
 * section or else `section`; `over` changes what the suite words otherwise (an id prefix, a title).
 */
export function rowCase(
  row: RowPlace,
  doc: 1 | 2 | 3,
  section: string,
  over: Partial<CaseDef> = {},
): CaseDef {
  return {
    id: row.id,
    title: row.title,
    doc,
    section: row.section ?? section,
    place: row.place,
    specRules: row.specRules,
    level: row.level,
    ...over,
  };
}

// Kinds are declared with what is particular to them; defineKind derives the rest of the
// ResourceDef: the list kind, singular and plural names, the verbs, unconditional updates
// (allowed), generation tracking (off), the schema normalization that comes before the
// prepare hooks, and the Name and Age columns around a table's own columns.
import type { KObject } from '../../storage/types.ts';
import type { ResourceDef, Strategy, TableColumn } from '../types.ts';
import { AGE_COLUMN, ALL_VERBS, get, NAME_COLUMN, normalizeBySchema } from './common.ts';

const HEADER_KEYS = [
  'group',
  'versions',
  'kind',
  'listKind',
  'plural',
  'singular',
  'namespaced',
  'shortNames',
  'categories',
  'verbs',
  'subresources',
  'schema',
  'schemas',
  'protobuf',
  'custom',
  'versionInfo',
  'storedAs',
] as const satisfies readonly (keyof ResourceDef)[];

type Header = Pick<ResourceDef, 'group' | 'kind' | 'namespaced'> &
  Partial<Pick<ResourceDef, (typeof HEADER_KEYS)[number]>>;

/** A kind's header and strategy in one object, with the derivable parts left out. */
export interface KindSpec extends Header, Strategy {
  /**
   * Columns between Name and Age; `afterAge` the ones after it. A kind whose table has no
   * Name or Age column where these go lists all of its columns in `table`.
   */
  columns?: TableColumn[];
  afterAge?: TableColumn[];
  /** Whether the prepare hooks first normalize the object by the schema (default true). */
  normalize?: boolean;
  /** The strategy's fields are the spec's own. */
  strategy?: never;
}

/** The plural of a lower-cased kind as Kubernetes spells its resources (`policies`, `classes`). */
export function pluralOf(singular: string): string {
  if (/(s|x|ch|sh)$/.test(singular)) return `${singular}es`;
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

export function defineKind(spec: KindSpec): ResourceDef {
  const { columns, afterAge, normalize = true, ...rest } = spec;
  const header: Partial<ResourceDef> = {};
  const strategy: Strategy & Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) {
    if ((HEADER_KEYS as readonly string[]).includes(k)) (header as Record<string, unknown>)[k] = v;
    else strategy[k] = v;
  }
  const singular = spec.singular ?? spec.kind.toLowerCase();
  strategy.allowUnconditionalUpdate ??= true;
  strategy.tracksGeneration ??= false;
  if (columns || afterAge)
    strategy.table = [NAME_COLUMN, ...(columns ?? []), AGE_COLUMN, ...(afterAge ?? [])];
  const schema = spec.schema;
  if (normalize && schema) {
    const { prepareForCreate: create, prepareForUpdate: update } = strategy;
    strategy.prepareForCreate = (o, ctx) => {
      normalizeBySchema(o, schema, spec.kind);
      create?.(o, ctx);
    };
    strategy.prepareForUpdate = (o, old, ctx) => {
      normalizeBySchema(o, schema, spec.kind);
      update?.(o, old, ctx);
    };
  }
  return {
    versions: ['v1'],
    listKind: `${spec.kind}List`,
    singular,
    plural: pluralOf(singular),
    verbs: ALL_VERBS,
    subresources: [],
    ...header,
    group: spec.group,
    kind: spec.kind,
    namespaced: spec.namespaced,
    strategy,
  };
}

/** What a column has besides its name, type and cell. */
export type ColumnExtras = Pick<TableColumn, 'description' | 'priority' | 'format'>;

const ZERO: Record<TableColumn['type'], unknown> = {
  string: '',
  integer: 0,
  number: 0,
  boolean: false,
  date: null,
};

/**
 * A table column. The cell is a function of the object, or a dotted path into it whose
 * missing value prints as the type's zero (`''`, `0`, `false`).
 */
export function col(
  name: string,
  type: TableColumn['type'],
  cell: string | ((o: KObject) => unknown),
  extras: ColumnExtras = {},
): TableColumn {
  const at = cell;
  return {
    name,
    type,
    ...extras,
    cell: typeof at === 'string' ? (o) => get(o, at) ?? ZERO[type] : at,
  };
}

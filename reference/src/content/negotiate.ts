// Content negotiation: Accept parsing and the choice of response encoding.
import { errors } from '../errors/status.ts';

export type Format = 'json' | 'yaml' | 'protobuf' | 'table';

export interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
}

export const JSON_TYPE = 'application/json';
export const YAML_TYPE = 'application/yaml';
export const PROTOBUF_TYPE = 'application/vnd.orch.protobuf';
export const TABLE_GROUP = 'meta.orch.io';
/**
 * Kubernetes' name for the Table's group. kubectl and client-go ask for
 * `application/json;as=Table;v=v1;g=meta.k8s.io` (v1beta1 as a fallback); the Table is the
 * same, so the Kubernetes name is accepted as an alias (as `application/vnd.kubernetes.protobuf`
 * is for request bodies) and the reply names the group the client asked for: kubectl checks
 * that what it decodes is a `meta.k8s.io` Table before printing its columns.
 */
export const KUBERNETES_TABLE_GROUP = 'meta.k8s.io';
const TABLE_GROUPS = new Set([TABLE_GROUP, KUBERNETES_TABLE_GROUP]);

/** A media type with nothing to normalise: small letters, no parameters, no blanks. */
const PLAIN_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/** The `type/subtype` of a Content-Type, in small letters, its parameters left out. */
export function mediaTypeOf(s: string): string {
  // the usual header (`application/json`) is that already: no parse of it every write
  return PLAIN_TYPE.test(s) ? s : parseMediaType(s).type;
}

export function parseMediaType(s: string): MediaRange {
  const parts = s.split(';');
  const type = parts[0]!.trim().toLowerCase();
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of parts.slice(1)) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    const v = p
      .slice(eq + 1)
      .trim()
      .replace(/^"|"$/g, '');
    if (k === 'q') q = Number(v);
    else params[k] = v;
  }
  return { type, params, q: Number.isFinite(q) ? q : 0 };
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header?.trim()) return [{ type: '*/*', params: {}, q: 1 }];
  return header
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseMediaType)
    .filter((m) => m.q > 0)
    .map((m, i) => ({ m, i }))
    .sort((a, b) => b.m.q - a.m.q || a.i - b.i)
    .map((x) => x.m);
}

export interface Negotiated {
  format: Format;
  contentType: string;
  /** Table: include the object (`None`, `Metadata`, `Object`). */
  includeObject?: string;
  /** Table: the group and version asked for, which the reply's apiVersion names. */
  table?: { group: string; version: 'v1' | 'v1beta1' };
  /**
   * `as=PartialObjectMetadata` or `as=PartialObjectMetadataList` (JSON): the objects' metadata
   * alone, in the meta group and version asked for (content/partial-metadata.ts).
   */
  partial?: { group: string; version: 'v1' | 'v1beta1' };
}

export interface Capabilities {
  protobuf: boolean;
  table: boolean;
}

/** Picks the response format; throws 406 when nothing acceptable is offered. */
export function negotiate(accept: string | undefined, caps: Capabilities): Negotiated {
  const ranges = parseAccept(accept);
  for (const r of ranges) {
    const as = r.params.as;
    if (as) {
      if (
        as === 'Table' &&
        caps.table &&
        (r.type === JSON_TYPE || r.type === '*/*' || r.type === 'application/*') &&
        TABLE_GROUPS.has(r.params.g ?? '') &&
        (r.params.v === 'v1' || r.params.v === 'v1beta1')
      ) {
        const table = { group: r.params.g!, version: r.params.v as 'v1' | 'v1beta1' };
        return {
          format: 'table',
          contentType: `${JSON_TYPE};as=Table;v=${table.version};g=${table.group}`,
          table,
        };
      }
      if (
        (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') &&
        (r.type === JSON_TYPE || r.type === '*/*' || r.type === 'application/*') &&
        TABLE_GROUPS.has(r.params.g ?? '') &&
        (r.params.v === 'v1' || r.params.v === 'v1beta1')
      ) {
        const partial = { group: r.params.g!, version: r.params.v as 'v1' | 'v1beta1' };
        return {
          format: 'json',
          contentType: `${JSON_TYPE};as=${as};g=${partial.group};v=${partial.version}`,
          partial,
        };
      }
      continue; // other `as=` forms (Protobuf metadata, other groups) are not served
    }
    switch (r.type) {
      case JSON_TYPE:
      case '*/*':
      case 'application/*':
        return { format: 'json', contentType: JSON_TYPE };
      case YAML_TYPE:
        return { format: 'yaml', contentType: YAML_TYPE };
      case PROTOBUF_TYPE:
        if (caps.protobuf) return { format: 'protobuf', contentType: PROTOBUF_TYPE };
        break;
    }
  }
  const offered = [JSON_TYPE, YAML_TYPE];
  if (caps.protobuf) offered.push(PROTOBUF_TYPE);
  if (caps.table) offered.push(`${JSON_TYPE};as=Table;v=v1;g=${TABLE_GROUP}`);
  throw errors.notAcceptable(offered);
}

// PartialObjectMetadata: what a client asking `as=PartialObjectMetadata` (one object, a watch
// event's) or `as=PartialObjectMetadataList` (a list) gets, as Kubernetes 1.28 answers it: the
// kind and the meta group version asked for, and the object's metadata alone (a list keeps its
// own metadata and gives each item as a PartialObjectMetadata). A Status passes unchanged. The
// garbage collector and the quota controller of a controller manager read everything this way.

type Rec = Record<string, unknown>;

export function asPartialMetadata(obj: unknown, partial: { group: string; version: string }): unknown {
  const o = obj as Rec | null;
  if (!o || typeof o !== 'object' || o.kind === 'Status') return obj;
  const apiVersion = `${partial.group}/${partial.version}`;
  const one = (x: Rec) => ({ kind: 'PartialObjectMetadata', apiVersion, metadata: x.metadata ?? {} });
  if (Array.isArray(o.items))
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion,
      metadata: o.metadata ?? {},
      items: (o.items as Rec[]).map(one),
    };
  return one(o);
}

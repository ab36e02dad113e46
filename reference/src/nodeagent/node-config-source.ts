// SerializedNodeConfigSource (doc3 § Node agent configuration: "has a `source` field"): the
// node's configuration source as the node agent checkpoints it. The fields of `source` follow
// the kubelet 1.28 (a configMap reference); the text shows only the one field.

import type { FieldDef } from './fields.ts';

export const NODE_CONFIG_SOURCE_KIND = 'SerializedNodeConfigSource';

const ROW = 'Kind `SerializedNodeConfigSource` has a `source` field';
const BEYOND = 'follows the kubelet 1.28: the fields of source are not shown';

export const NODE_CONFIG_SOURCE_FIELDS: readonly FieldDef[] = [
  {
    name: 'source',
    kind: 'object',
    row: ROW,
    beyond: BEYOND,
    fields: [
      {
        name: 'configMap',
        kind: 'object',
        row: ROW,
        beyond: BEYOND,
        fields: ['namespace', 'name', 'uid', 'resourceVersion', 'kubeletConfigKey'].map((name) => ({
          name,
          kind: 'string' as const,
          row: ROW,
          beyond: BEYOND,
        })),
      },
    ],
  },
];

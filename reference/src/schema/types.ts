// Structural schemas (an OpenAPI v3 subset), used for built-in kinds and custom resources
// alike: type checks, pruning, field validation, patch strategies and Protobuf field numbers.
export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  'x-orch-preserve-unknown-fields'?: boolean;
  'x-orch-int-or-string'?: boolean;
  'x-orch-embedded-resource'?: boolean;
  'x-orch-list-type'?: 'atomic' | 'set' | 'map';
  'x-orch-list-map-keys'?: string[];
  'x-orch-map-type'?: 'atomic' | 'granular';
  /** Built-in kinds: Go `patchStrategy` / `patchMergeKey` markers (strategic merge patch). */
  'x-orch-patch-strategy'?: string;
  'x-orch-patch-merge-key'?: string;
  /** Built-in kinds: Protobuf field number of this field in its parent message. */
  'x-proto'?: number;
  /** Built-in kinds: Protobuf message name for an object schema. */
  'x-proto-message'?: string;
}

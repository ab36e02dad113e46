// The node agent configuration library: loading, defaulting and validating
// `nodeagent.config.orch.io/v1beta1` files, and their JSON schema.
export { formatFieldError, type FieldError } from './field-error.ts';
export { API_VERSION, FIELDS, KIND, RENAMED, type FieldDef } from './fields.ts';
export { loadNodeConfig, type Loaded } from './load.ts';
export { nodeConfigJsonSchema } from './json-schema.ts';
export { RULE_CLASSES, type RuleClass } from './rule-class.ts';
export { MAX_BYTES } from './parse.ts';

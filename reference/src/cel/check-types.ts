// The evaluator's checked types as Kubernetes 1.28 (cel-go) writes and compares them in compile
// errors: `list(int)`, `map(string, int)`, `timestamp`, `null`; the protobuf text of a type that
// does not support field selection (`primitive:INT64`); and whether one element type of a list
// or map literal may join the ones before it (literals are homogeneous in Kubernetes).

/** A checked type of the evaluator (its registry's type declaration). */
export interface CheckedType {
  kind: string;
  name: string;
  keyType?: CheckedType;
  valueType?: CheckedType;
}

/** The type of an expression whose method is not declared: cel-go leaves it unset (`<nil>`). */
export const UNSET = '<nil>';

const WELL_KNOWN: Record<string, string> = {
  'google.protobuf.Timestamp': 'timestamp',
  'google.protobuf.Duration': 'duration',
};

/** cel-go's FormatCheckedType. Type parameters read `dyn`, as in an overload error. */
export function formatType(t: CheckedType): string {
  switch (t.kind) {
    case 'dyn':
    case 'param':
      return 'dyn';
    case 'list':
      return `list(${formatType(t.valueType!)})`;
    case 'map':
      return `map(${formatType(t.keyType!)}, ${formatType(t.valueType!)})`;
    default:
      return WELL_KNOWN[t.name] ?? t.name;
  }
}

const PRIMITIVES: Record<string, string> = {
  int: 'INT64',
  uint: 'UINT64',
  double: 'DOUBLE',
  string: 'STRING',
  bool: 'BOOL',
  bytes: 'BYTES',
};

/** The protobuf text of a checked type, as cel-go prints it in "does not support field selection". */
export function protoText(t: CheckedType): string {
  if (t.name === UNSET) return UNSET;
  switch (t.kind) {
    case 'list':
      return `list_type:{elem_type:{${protoText(t.valueType!)}}}`;
    case 'map':
      return `map_type:{key_type:{${protoText(t.keyType!)}} value_type:{${protoText(t.valueType!)}}}`;
    case 'dyn':
    case 'param':
      return 'dyn:{}';
  }
  if (PRIMITIVES[t.name]) return `primitive:${PRIMITIVES[t.name]}`;
  if (WELL_KNOWN[t.name]) return `well_known:${WELL_KNOWN[t.name]!.toUpperCase()}`;
  if (t.name === 'null') return 'null:NULL_VALUE';
  if (t.name === 'type') return 'type:{}';
  return `message_type:"${t.name}"`;
}

/** Whether a field may be selected on a value of this type (a map, a message, or of no known type). */
export function selectable(t: CheckedType): boolean {
  if (t.kind === 'dyn' || t.kind === 'param' || t.kind === 'map') return true;
  return t.kind === 'message' && !WELL_KNOWN[t.name] && t.name !== UNSET;
}

const isOpen = (t: CheckedType) => t.kind === 'dyn' || t.kind === 'param';

/** Types a null is assignable to (cel-go: messages, well-known types, null itself). */
const nullable = (t: CheckedType) => t.name === 'null' || (t.kind === 'message' && t.name !== UNSET);

/** cel-go's isAssignable(previous, current), for the element types of a literal. */
export function assignable(previous: CheckedType, current: CheckedType): boolean {
  if (isOpen(previous) || isOpen(current)) return true;
  if (previous.name === 'null') return nullable(current);
  if (previous.kind !== current.kind) return false;
  switch (previous.kind) {
    case 'list':
      return assignable(previous.valueType!, current.valueType!);
    case 'map':
      return (
        assignable(previous.keyType!, current.keyType!) && assignable(previous.valueType!, current.valueType!)
      );
    default:
      return previous.name === current.name;
  }
}

/** cel-go's mostGeneral: the less specific of two assignable types. */
export function mostGeneral(a: CheckedType, b: CheckedType): CheckedType {
  return lessSpecific(a, b) ? a : b;
}

function lessSpecific(a: CheckedType, b: CheckedType): boolean {
  if (isOpen(a)) return true;
  if (a.kind !== b.kind) return false;
  if (a.kind === 'list') return lessSpecific(a.valueType!, b.valueType!);
  if (a.kind === 'map')
    return lessSpecific(a.keyType!, b.keyType!) && lessSpecific(a.valueType!, b.valueType!);
  return a.name === b.name;
}

/**
 * The element types of a literal that do not join the ones before them, each with the type it
 * should have had. After a mismatch the joined type is an error type, which the next element's
 * type replaces (cel-go's joinTypes): so `[1, 'a', 2, 'b']` has two, `[1, 'a', 'b']` one.
 */
export function mismatches(types: CheckedType[]): { index: number; expected: CheckedType }[] {
  const out: { index: number; expected: CheckedType }[] = [];
  let joined: CheckedType | undefined;
  for (const [index, t] of types.entries()) {
    // an element of no type (an undeclared method) joins nothing: the next one starts afresh
    if (!joined || joined.name === UNSET) joined = t;
    else if (assignable(joined, t)) joined = mostGeneral(joined, t);
    else {
      out.push({ index, expected: joined });
      joined = undefined;
    }
  }
  return out;
}

const NUMERIC = new Set(['int', 'uint', 'double']);

/** Two numbers of different types, which Kubernetes 1.28's environment does not compare. */
export function crossNumeric(a: CheckedType, b: CheckedType): boolean {
  return NUMERIC.has(a.name) && NUMERIC.has(b.name) && a.name !== b.name;
}

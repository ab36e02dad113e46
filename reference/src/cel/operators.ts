// The operators of an expression by the names cel-go gives their overloads (its errors and
// cost estimates print them).
/** cel-go's names of the operators, as its overload errors print them. */
export const OPERATOR_NAMES: Record<string, string> = {
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  in: '@in',
  '&&': '_&&_',
  '||': '_||_',
  '!_': '!_',
  '-_': '-_',
};

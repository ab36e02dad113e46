// The rows of types.yaml (suites/cel/rows-suite.ts).
import { rowsSuite } from '../rows-suite.ts';

rowsSuite('types');

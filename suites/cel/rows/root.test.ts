// The rows of root.yaml (suites/cel/rows-suite.ts).
import { rowsSuite } from '../rows-suite.ts';

rowsSuite('root');

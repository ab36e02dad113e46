// The rows of evaluation.yaml (suites/cel/rows-suite.ts).
import { rowsSuite } from '../rows-suite.ts';

rowsSuite('evaluation');

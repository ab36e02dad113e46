// The rows of library.yaml (suites/cel/rows-suite.ts).
import { rowsSuite } from '../rows-suite.ts';

rowsSuite('library');

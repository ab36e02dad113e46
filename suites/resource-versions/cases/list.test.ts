// The list table (cases/list.yaml; suites/resource-versions/tables-suite.ts).
import { tableSuite } from '../tables-suite.ts';

tableSuite('list');

// The webhook contract rows of rows/contract/50-phases.yaml (contract-cases.ts).
import { contractCases } from './contract-cases.ts';

contractCases('50-phases.yaml');

// The webhook contract rows of rows/contract/60-audit.yaml (contract-cases.ts).
import { contractCases } from './contract-cases.ts';

contractCases('60-audit.yaml');

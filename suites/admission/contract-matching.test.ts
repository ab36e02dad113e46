// The webhook contract rows of rows/contract/40-matching.yaml (contract-cases.ts).
import { contractCases } from './contract-cases.ts';

contractCases('40-matching.yaml');

import { describePostgres } from './conformance-backend.js';

describePostgres('faults');

import { describePostgres } from './conformance-backend.js';

// The fault scenarios run in postgres-faults.test.ts, beside this file.
describePostgres('contract');

import { describeMysql } from './conformance-backend.js';

// The fault scenarios run in mysql-faults.test.ts, beside this file.
describeMysql('contract');

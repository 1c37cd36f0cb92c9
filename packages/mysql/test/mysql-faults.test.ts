import { describeMysql } from './conformance-backend.js';

describeMysql('faults');

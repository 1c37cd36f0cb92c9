export { memoryStorage } from './memory-storage.js';

export { memoryStorage, type MemoryStorageOptions } from './memory-storage.js';

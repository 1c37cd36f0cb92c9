export { createHttpApp, type HttpApp } from './app.js';
export type { HttpAppOptions } from './context.js';
export { HttpError, toHttp, errorBody } from './errors.js';
export { integrationToWire } from './wire.js';
export { serve, type ServeOptions } from './serve.js';

export { evaluateFilters, explainFilters, firstFailure } from './evaluate.js';
export type { FilterContext, FilterTrace, GroupTrace, PartTrace } from './evaluate.js';
export { asList as filterListItems } from './values.js';

export { deepResearch } from './deep-research';
export { researchMetadata } from './metadata';

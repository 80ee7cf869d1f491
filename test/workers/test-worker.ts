// The worker under test: exactly the production entry point (tests reach it through SELF and its
// Durable Object bindings).
export * from '../../worker/index.js';
export { default } from '../../worker/index.js';

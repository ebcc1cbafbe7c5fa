/** The one free-port helper of the tests, the demo, the private servers and the benches. */
export { freePort } from '../../scripts/services/free-port';

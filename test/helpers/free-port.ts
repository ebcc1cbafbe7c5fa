/** One free-port helper for the tests, the demo and the private servers (scripts/services). */
export { freePort } from '../../scripts/services/free-port';

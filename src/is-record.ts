// One reading of "a JSON object" for the product and the API client: the client package owns it.
export { isRecord } from '@svcws/client';

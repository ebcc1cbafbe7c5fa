import type { BodyCaps } from '@svcws/client';
import type { ClientConfig } from './config';

/** SVC_MAX_LIST_BYTES and SVC_MAX_ANSWER_BYTES as the client takes them; unset: its defaults. */
export function bodyCapsOf(
  config: Pick<ClientConfig, 'SVC_MAX_LIST_BYTES' | 'SVC_MAX_ANSWER_BYTES'>,
): Partial<BodyCaps> {
  return {
    ...(config.SVC_MAX_LIST_BYTES === undefined ? {} : { list: config.SVC_MAX_LIST_BYTES }),
    ...(config.SVC_MAX_ANSWER_BYTES === undefined ? {} : { document: config.SVC_MAX_ANSWER_BYTES }),
  };
}

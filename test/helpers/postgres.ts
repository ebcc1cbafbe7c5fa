import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

import { TEST_POSTGRES_URL } from './test-services';

export { TEST_POSTGRES_URL };

/** A schema of its own for one test, dropped with everything in it by `drop()`. */
export async function createTestSchema(
  prefix: string,
): Promise<{ schema: string; client: Client; drop(): Promise<void> }> {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  return {
    schema,
    client,
    drop: async () => {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

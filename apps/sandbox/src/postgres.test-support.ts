import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** A new, empty database on the PostgreSQL server at `serverUrl`; its URL. */
export async function freshDatabase(serverUrl: string): Promise<string> {
  const name = `sandbox_test_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

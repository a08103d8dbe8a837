// `list`: the sessions in the session store, newest first, a page at a time (no Temporal needed).
import type { AppConfig } from '../config/schema';
import { openSessionStore } from '../stores/open';

interface ListFlags {
  json?: boolean;
  limit: number;
  cursor?: string;
  status?: string;
}

export async function list(config: AppConfig, o: ListFlags): Promise<void> {
  const store = openSessionStore(config);
  try {
    const page = await store.list({ limit: o.limit, cursor: o.cursor, status: o.status });
    const text = page.sessions.length
      ? page.sessions.map((s) => `${s.research_id}  ${s.status.padEnd(22)} ${s.created_at}  ${s.initial_query.slice(0, 60)}`).join('\n') +
        (page.next_cursor ? `\nmore: --cursor ${page.next_cursor}` : '')
      : 'no research sessions yet';
    process.stdout.write(o.json ? `${JSON.stringify(page)}\n` : `${text}\n`);
  } finally {
    await store.close();
  }
}

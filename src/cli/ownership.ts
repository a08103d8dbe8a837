// Sessions the command line starts have an owner in the service store, like the API's: the user
// its token names (DEEP_RESEARCH_TOKEN, a token from `deep-research token create <user>`), or else
// the operator. So `GET /api/research` on any `serve` of the fleet lists them for that user and for
// operators (src/server/visibility.ts says who sees what).
import type { ResearchClient } from '../client/research-client';
import { CLI_TOKEN_ENV } from '../config/environment';
import { OPERATOR_USER } from '../domain/names';
import { openServiceStore } from '../stores/open';

/** Whom the command line acts for; an unknown token is refused before anything starts. */
export async function cliOwner(client: ResearchClient): Promise<string> {
  const token = client.config.environment.cli.token;
  if (!token) return OPERATOR_USER;
  const store = openServiceStore(client.config);
  try {
    const user = await store.userForToken(token);
    if (!user) throw new Error(`${CLI_TOKEN_ENV} is not a valid API token here (create one with "deep-research token create <user>")`);
    return user;
  } finally {
    await store.close();
  }
}

/** Records who owns a session just started; a store that cannot take it is reported, the session runs on. */
export async function recordOwner(
  client: ResearchClient,
  owner: string,
  s: { researchId: string; query: string; status: string; parentId?: string },
  log: (line: string) => void,
): Promise<void> {
  const store = openServiceStore(client.config);
  try {
    if (!(await store.exists(s.researchId))) await store.insert({ research_id: s.researchId, owner, query: s.query, status: s.status, settings: {}, parent_id: s.parentId ?? null });
  } catch (err) {
    log(`research ${s.researchId}: its owner (${owner}) could not be recorded (${(err as Error).message}); operators still see it`);
  } finally {
    await store.close();
  }
}

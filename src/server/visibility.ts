// Who sees what. Every session has an owner in the service store: the API user who created it, or
// for the command line the user its token names (DEEP_RESEARCH_TOKEN), else the operator. A user
// sees their own sessions; an operator sees and steers every session. Operators: the user
// `operator`, users named in DEEP_RESEARCH_OPERATORS, and — on a loopback server with no tokens at
// all, where nobody authenticates — the local user.
import type { AppConfig } from '../config/schema';
import { OPERATOR_USER } from '../domain/names';
import type { SessionStore } from '../stores/sessions';
import { LOCAL_USER } from './auth';
import type { ListFilter, OwnedSession, ServiceStore } from '../stores/service';

/** The operator and the users DEEP_RESEARCH_OPERATORS names. */
export function operatorsOf(config: Pick<AppConfig, 'environment'>): Set<string> {
  return new Set([OPERATOR_USER, ...config.environment.service.operators]);
}

export class Visibility {
  constructor(
    private readonly store: ServiceStore,
    private readonly sessions: () => SessionStore,
    private readonly operators: Set<string>,
  ) {}

  async seesAll(user: string): Promise<boolean> {
    if (this.operators.has(user)) return true;
    return user === LOCAL_USER && (await this.store.tokenCount()) === 0;
  }

  /** The session if `user` may see it. An operator also gets sessions no one owns yet (started before owners were recorded): they become the operator's. */
  async find(user: string, id: string): Promise<OwnedSession | undefined> {
    if (!(await this.seesAll(user))) return this.store.owned(id, user);
    const owned = await this.store.get(id);
    if (owned) return owned;
    const stored = await this.sessions().get(id);
    if (!stored) return undefined;
    return this.store.insert({ research_id: id, owner: OPERATOR_USER, query: stored.initial_query, status: stored.status, settings: {}, parent_id: null });
  }

  /** The list filter for `user`: an operator's lists every owner's sessions. */
  async filter(f: ListFilter & { owner: string }): Promise<ListFilter> {
    return (await this.seesAll(f.owner)) ? { ...f, owner: undefined } : f;
  }
}

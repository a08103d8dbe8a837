// OpenAPI links: which answer gives the ids another operation takes (a created session's id to
// every operation on that session, a schedule's runs to their sessions, a session's sources and
// artifacts to their reads, a share token to the shared report). A client generator, or a fuzzer's
// stateful phase, follows them from one call to the next.

type Operation = { operationId?: string; responses?: Record<string, { links?: Record<string, unknown> }> };
type Document = { paths?: Record<string, Record<string, Operation>> };

/** Where an answer holds an id, as a runtime expression per path parameter. */
interface IdSource {
  /** The operations whose answers hold it, with the status that does. */
  from: [operationId: string, status: string][];
  /** Path parameter → runtime expression into the answer. */
  gives: Record<string, string>;
  /** Which operations take it: those whose path has this prefix and parameters. */
  to: (path: string) => boolean;
}

const SESSION = (path: string) => path.startsWith('/api/research/{id}') && !path.includes('{sourceId}') && !path.includes('{fileId}');

const SOURCES: IdSource[] = [
  { from: [['createResearch', '201'], ['enhanceResearch', '201'], ['editDraft', '200'], ['toggleFavourite', '200'], ['unshareResearch', '200']], gives: { id: '$response.body#/research_id' }, to: SESSION },
  { from: [['listResearches', '200']], gives: { id: '$response.body#/sessions/0/research_id' }, to: SESSION },
  { from: [['createSchedule', '201'], ['getSchedule', '200'], ['triggerSchedule', '200']], gives: { id: '$response.body#/runs/0/research_id' }, to: SESSION },
  { from: [['createSchedule', '201'], ['getSchedule', '200']], gives: { id: '$response.body#/schedule_id' }, to: (path) => path.startsWith('/api/schedules/{id}') },
  { from: [['getResearch', '200']], gives: { id: '$response.body#/research/research_id', sourceId: '$response.body#/state/sources/0/id' }, to: (path) => path.includes('{sourceId}') },
  { from: [['getResearch', '200']], gives: { id: '$response.body#/research/research_id', fileId: '$response.body#/state/artifacts/0/file_id' }, to: (path) => path.includes('{fileId}') },
  { from: [['shareResearch', '200']], gives: { token: '$response.body#/share_token' }, to: (path) => path === '/api/shared/{token}' || path === '/share/{token}' },
];

/** The document with its links: every operation an id source leads to, from each answer that gives it. */
export function withLinks<T extends object>(document: T): T {
  const paths = (document as Document).paths ?? {};
  const operations = Object.entries(paths).flatMap(([path, methods]) => Object.values(methods).map((op) => ({ path, op })));
  const byId = new Map(operations.map(({ path, op }) => [op.operationId, { path, op }]));
  for (const source of SOURCES) {
    const targets = operations.filter(({ path }) => source.to(path) && Object.keys(source.gives).every((param) => path.includes(`{${param}}`)));
    for (const [operationId, status] of source.from) {
      const response = byId.get(operationId)?.op.responses?.[status];
      if (!response) continue;
      for (const { op } of targets) {
        if (!op.operationId || op.operationId === operationId) continue;
        response.links = { ...response.links, [`${op.operationId}${linkSuffix(source)}`]: { operationId: op.operationId, parameters: source.gives } };
      }
    }
  }
  return document;
}

/** Links from one answer to one operation by two ids differ in name. */
const linkSuffix = (source: IdSource) => (source.gives.id?.includes('/runs/') ? 'OfRun' : source.gives.id?.includes('/sessions/') ? 'OfFirst' : '');

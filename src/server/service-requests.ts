// What the service takes and gives beyond HTTP: a create request, a session as callers see it,
// an enhance request's contexts (text, or files parsed here), and the panel fields as settings.
import type { EnhanceOptions } from '../client/session-ops';
import { contextFromFile } from '../client/context-files';
import type { SettingsOverrides } from '../config/session-settings';
import type { InputContext } from '../domain/types';
import type { OwnedSession } from '../stores/service';
import { validateQuery, type Question } from '../client/errors';
import { invalid } from './errors';

export interface CreateRequest {
  /** Absent: the session asks for its question (seed 003's ask_topic). */
  query?: string;
  /** Validated by the route's schema (sessionSettings), once. */
  settings?: SettingsOverrides;
  draft?: boolean;
  auto_approve?: boolean;
  /** Panel research: "provider:model" items, or plain words ("use Claude and Gemini"). */
  panel?: string[] | string;
  synthesis_model?: string;
  skip_synthesis?: boolean;
  /** Seed 004's inputContexts: text read as sources. */
  input_contexts?: InputContext[];
}

export interface InputCheckView {
  quality?: 0 | 1 | 2;
  reason?: string;
  improved_prompt?: string;
  /** The check could not run (no worker, model down); it never blocks anything. */
  error?: string;
}

export interface SessionView {
  research_id: string;
  /** Who it belongs to: its creator (an API user, or the CLI's token's user), or `operator`. */
  owner: string;
  status: string;
  query: string;
  favourite: boolean;
  shared: boolean;
  share_token?: string;
  parent_id: string | null;
  settings?: Record<string, unknown>;
  /** How many input contexts a draft holds (read as sources once it starts). */
  contexts?: number;
  plan?: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** What the service decided for this session that the caller did not ask for. */
  notes?: string[];
}

export function sessionView(s: OwnedSession): SessionView {
  return {
    research_id: s.research_id,
    owner: s.owner,
    status: s.status,
    query: s.query,
    favourite: s.favourite,
    shared: !!s.share_token,
    ...(s.share_token ? { share_token: s.share_token } : {}),
    parent_id: s.parent_id,
    ...(s.status === 'draft' ? { settings: s.settings, contexts: s.contexts.length, ...(s.plan ? { plan: s.plan } : {}) } : {}),
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

export type EnhanceContext = { content: string; label?: string } | { filename: string; content_type?: string; data_base64: string };
export type EnhanceRequest = Omit<EnhanceOptions, 'contexts' | 'researchId'> & { contexts?: EnhanceContext[] };

/**
 * Text contexts as given; files decoded and parsed. A file whose bytes cannot be read as its type
 * (no schema can say that of bytes) is left out, and a note says which and why, by position.
 */
export async function readContexts(contexts: EnhanceContext[]): Promise<{ contexts: { content: string; label?: string }[]; notes: string[] }> {
  const notes: string[] = [];
  const read = await Promise.all(
    contexts.map(async (c, i) => {
      if ('content' in c) return c;
      try {
        return await contextFromFile({ filename: c.filename, contentType: c.content_type, bytes: Buffer.from(c.data_base64, 'base64') });
      } catch (err) {
        notes.push(`body.contexts.${i} was left out: ${(err as Error).message}`);
        return undefined;
      }
    }),
  );
  return { contexts: read.filter((c) => c !== undefined), notes };
}

/** The panel fields of a create request, as session settings. */
/** A create request parsed at the edge (the route, the MCP tool): its question checked, once. */
export interface CreateCommand extends Omit<CreateRequest, 'query'> {
  /** Absent: the session asks for its question. */
  query?: Question;
}

export function createCommand(req: CreateRequest): CreateCommand {
  return { ...req, query: req.query === undefined ? undefined : question(req.query) };
}

/** The question checked; refused as a 400 naming the field. */
export function question(query: unknown, field = 'body.query'): Question {
  try {
    return validateQuery(query);
  } catch (err) {
    throw invalid(field, (err as Error).message);
  }
}

export function panelSettings(req: CreateRequest): SettingsOverrides {
  const panel = typeof req.panel === 'string' ? [req.panel] : req.panel;
  return {
    ...(panel?.length ? { panel } : {}),
    ...(req.synthesis_model ? { synthesis_model: req.synthesis_model } : {}),
    ...(req.skip_synthesis !== undefined ? { skip_synthesis: req.skip_synthesis } : {}),
  };
}
